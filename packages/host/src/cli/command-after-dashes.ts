import { toConfiguredId, type Errors, type Interfaces } from '@oclif/core';
import { ERROR_CODES } from '../errors/index.js';
import { posixCommand } from '../install-hooks/quote/posix.js';
import { asksForJson } from './json-flag.js';
import { reportError } from './report-error.js';

/**
 * Commands that run another command given after `--` (`cordon control run -- ls -d /tmp`,
 * `cordon wrap -- aider --yes`). Everything after the first word of that command is its own.
 * Without the `--`, oclif would read the command's words as the cordon command's: its flags as
 * unknown flags (`cordon control run ls -d /tmp`: `nonexistent flag: -d`), or worse, as the
 * cordon command's own (`cordon control run ls --verbose` ran `ls` with cordon's `--verbose`),
 * and words after a misplaced `--` alone as the command (`cordon control run ls -- -d` ran
 * `-d`). So a command word before any `--` is refused, before oclif parses anything (the `init`
 * hook), with the command line corrected: `cordon control run -- ls --verbose`.
 *
 * A command says it is one of them with a static property (plugins cannot import host code, so
 * it is a name, not a type): `static commandAfterDashes = true`. oclif keeps it in the command's
 * manifest, so it is read without loading the command.
 */

/** The static property by which a command class says it runs the command after `--`. */
export const COMMAND_AFTER_DASHES = 'commandAfterDashes';

/** True when the command class (or oclif's manifest entry of it) `command` declares {@link COMMAND_AFTER_DASHES}. */
export function takesCommandAfterDashes(command: unknown): boolean {
  return (typeof command === 'function' || (typeof command === 'object' && command !== null)) && (command as Record<string, unknown>)[COMMAND_AFTER_DASHES] === true;
}

/** A flag as oclif describes it: `option` flags take a value, `boolean` ones do not (`allowNo`: also `--no-<name>`). */
interface FlagSpec {
  readonly type?: string;
  readonly char?: string;
  readonly allowNo?: boolean;
}

/** A command line whose command to run came without `--` before it, and that line corrected. */
export interface DashesCorrection {
  /** `command`, its own flags as typed, `--`, then the command to run, quoted for a POSIX shell. */
  readonly line: string;
  /** The arguments that are the cordon command's own: those before the command to run. */
  readonly own: readonly string[];
}

/**
 * When `argv` (the arguments after `command`, e.g. `cordon control run`) has a word that is
 * neither one of `flags` nor the value of one before any `--` (the command to run, given without
 * the `--`), the command line corrected: `command`, the flags before that word as typed, `--`,
 * then that word and every word after it, a later `--` included, each quoted for a POSIX shell
 * where it needs it (`cordon control run -- ls --verbose`). Undefined when the `--` comes first,
 * and when a word that is no flag of `flags` comes before any such word (a mistyped cordon flag,
 * which oclif refuses as such).
 */
export function dashesCorrection(argv: readonly string[], flags: Readonly<Record<string, FlagSpec | undefined>>, command: string): DashesCorrection | undefined {
  const at = firstCommandWord(argv, flags);
  if (at === undefined) return undefined;
  const own = argv.slice(0, at);
  return { line: `${command} ${posixCommand([...own, '--', ...argv.slice(at)])}`, own };
}

/**
 * The index of the first word of `argv` that is neither one of `flags` (`--name`, `--name=value`,
 * `--no-name`, `-c`) nor the value of one that takes a value: where the command to run starts.
 * Undefined when a `--` or a flag that is not one of `flags` comes first, or there is no such word.
 */
function firstCommandWord(argv: readonly string[], flags: Readonly<Record<string, FlagSpec | undefined>>): number | undefined {
  const specs = Object.entries(flags);
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return undefined;
    if (!word.startsWith('-') || word === '-') return i;
    const long = word.startsWith('--');
    const name = long ? word.slice(2).split('=')[0]! : word.slice(1);
    const negated = long && name.startsWith('no-') && Object.hasOwn(flags, name.slice(3)) && flags[name.slice(3)]?.allowNo === true;
    const spec = long ? (Object.hasOwn(flags, name) ? flags[name] : negated ? { type: 'boolean' } : undefined) : specs.find(([, s]) => s?.char === name)?.[1];
    if (spec === undefined) return undefined;
    if (spec.type === 'option' && !word.includes('=')) i++;
  }
  return undefined;
}

/**
 * Refuses the command line of command `id` (oclif's colon form) with arguments `argv` when that
 * command runs another after `--` ({@link takesCommandAfterDashes}, read from `config`'s manifest
 * entry) and the other command came without the `--` ({@link dashesCorrection}): prints
 * `CORDON_BAD_INPUT` with the corrected line (the JSON document when the cordon command's own
 * flags ask for `--json`; `details.corrected`) and returns the error to throw, which ends the
 * process with exit 2 before anything ran. Undefined, printing nothing, for any other command
 * line.
 */
export function refuseCommandWithoutDashes(id: string, argv: readonly string[], config: Interfaces.Config): Errors.ExitError | undefined {
  const command = config.findCommand(id);
  if (!command || !takesCommandAfterDashes(command)) return undefined;
  const corrected = dashesCorrection(argv, command.flags as Readonly<Record<string, FlagSpec | undefined>>, `${config.bin} ${toConfiguredId(command.id, config)}`);
  if (corrected === undefined) return undefined;
  return reportError(
    {
      code: ERROR_CODES.BAD_INPUT,
      message: `put the command to run after --, where every word is its own (cordon's flags go before the --): \`${corrected.line}\``,
      details: { corrected: corrected.line },
    },
    2,
    asksForJson(corrected.own),
  );
}
