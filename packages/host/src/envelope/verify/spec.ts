import type * as shlexModule from 'shlex';
import { lazyPackage } from '../../util/lazy-package.js';
import { isPlainObject, exactKeys } from '../policy/policy.js';

// Loaded on first use: validating a state without verifiers (most checks) never splits a command.
const shlex = lazyPackage<typeof shlexModule>('shlex');
const split = (command: string): string[] => shlex().split(command);

/** How an envelope's verifiers run (stored in `.cordon/config.json`). */
export interface VerifySpec {
  /** Raw command strings, run in order; split with POSIX shell-word rules, never through a shell. */
  readonly commands: readonly string[];
  /** Wall-clock limit per verifier, in seconds. */
  readonly timeout_seconds: number;
  /** Output bytes allowed per stream per verifier. */
  readonly output_cap: number;
}

/** At most this many verifiers (the BEKO2210/SkillQuarry cordon). */
export const MAX_VERIFIERS = 8;
/** Longest verifier command, in characters (the BEKO2210/SkillQuarry cordon). */
export const MAX_VERIFIER_LENGTH = 4096;
/** Default verifier timeout, seconds (the BEKO2210/SkillQuarry cordon: 300 s). */
export const DEFAULT_VERIFY_TIMEOUT_SECONDS = 300;
/** Default verifier output cap per stream, bytes (the BEKO2210/SkillQuarry cordon: 4 MiB). */
export const DEFAULT_VERIFY_OUTPUT_CAP = 4 * 1024 * 1024;

/** Longest `--verify-timeout`, seconds: a week. */
export const MAX_VERIFY_TIMEOUT_SECONDS = 7 * 24 * 3600;

/**
 * Splits one verifier command into argv with POSIX shell-word rules (the `shlex` package:
 * quotes and backslash escapes; `#` is not a comment; no expansion, no operators, so
 * `true && false` is `true` with two arguments: the BEKO2210/SkillQuarry cordon). Throws `Error` naming the command
 * when it is blank, too long, has unbalanced quotes, splits to an empty executable, or starts
 * with an environment assignment (`FOO=1 npm test`: suggests `env FOO=1 npm test`).
 */
export function splitCommand(command: string): string[] {
  if (typeof command !== 'string' || command.trim() === '') throw new Error('invalid --verify command: it is blank');
  if (command.length > MAX_VERIFIER_LENGTH) throw new Error(`invalid --verify command: longer than ${MAX_VERIFIER_LENGTH} characters`);
  let argv: string[];
  try {
    argv = split(command);
  } catch (error) {
    const reason = /quoted string/.test((error as Error).message) ? 'No closing quotation' : (error as Error).message;
    throw new Error(`invalid --verify command ${JSON.stringify(command)}: ${reason}`);
  }
  if (argv.length === 0 || argv[0] === '') throw new Error(`invalid --verify command ${JSON.stringify(command)}: empty executable`);
  // A shell would read `NAME=value cmd` as an assignment; without one it is the program name and
  // could never start (POSIX XCU 2.9.1 "Simple Commands" names the assignment form).
  const assignments = argv.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  if (assignments !== 0) {
    const words = assignments === -1 ? argv : argv.slice(0, assignments);
    const suggestion = assignments === -1 ? `env ${command.trim()} <command>` : `env ${command.trim()}`;
    throw new Error(`invalid --verify command ${JSON.stringify(command)}: ${JSON.stringify(words[0])} is an environment assignment, which only a shell understands (verifiers run without one); write \`${suggestion}\``);
  }
  return argv;
}

/** The first problem with `spec` (shape, count, each command, timeout, cap), or undefined. */
export function verifySpecProblem(spec: unknown): string | undefined {
  if (!isPlainObject(spec)) return 'verify is not an object';
  const extra = exactKeys(spec, ['commands', 'output_cap', 'timeout_seconds']);
  if (extra) return `verify ${extra}`;
  if (!Array.isArray(spec.commands)) return 'verify commands is not a list';
  if (spec.commands.length > MAX_VERIFIERS) return `too many --verify commands: ${spec.commands.length} > ${MAX_VERIFIERS}`;
  for (const command of spec.commands) {
    if (typeof command !== 'string') return 'verify commands holds a non-string';
    try {
      splitCommand(command);
    } catch (error) {
      return (error as Error).message;
    }
  }
  const t = spec.timeout_seconds;
  if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > MAX_VERIFY_TIMEOUT_SECONDS) return `--verify-timeout must be a positive number of seconds (at most ${MAX_VERIFY_TIMEOUT_SECONDS})`;
  const cap = spec.output_cap;
  if (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap <= 0) return '--verify-output-cap must be a positive integer (bytes)';
  return undefined;
}
