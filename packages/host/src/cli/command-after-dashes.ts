import { posixCommand } from '../install-hooks/quote/posix.js';

/**
 * Commands that run another command given after `--` (`cordon control run -- ls -d /tmp`,
 * `cordon wrap -- aider --yes`). Without the `--`, oclif reads the command's own flags as the
 * cordon command's (`cordon control run ls -d /tmp`: `nonexistent flag: -d`); the refusal then
 * shows the command line with the `--` where it belongs.
 *
 * A command says it is one of them with a static property (plugins cannot import host code, so
 * it is a name, not a type): `static commandAfterDashes = true`.
 */

/** The static property by which a command class says it runs the command after `--`. */
export const COMMAND_AFTER_DASHES = 'commandAfterDashes';

/** True when the command class `command` declares {@link COMMAND_AFTER_DASHES}. */
export function takesCommandAfterDashes(command: unknown): boolean {
  return (typeof command === 'function' || (typeof command === 'object' && command !== null)) && (command as Record<string, unknown>)[COMMAND_AFTER_DASHES] === true;
}

/** A flag as oclif's parser describes it: `option` flags take a value, `boolean` ones do not. */
interface FlagSpec {
  readonly type?: string;
  readonly char?: string;
}

/** What oclif's `NonExistentFlagsError` carries: the parse's input (argv and flag specs). */
interface ParseInput {
  readonly argv?: unknown;
  readonly flags?: unknown;
}

/**
 * The corrected command line for oclif's refusal `error` of an unknown flag (its
 * `NonExistentFlagsError`, which keeps the parse's argv and flags) when that flag came after the
 * first word that is no flag of `command` (`cordon control run`): `command`, its own flags as
 * typed, `--`, then that word and everything after it, each word quoted for a POSIX shell where
 * it needs it (`cordon control run -- ls -d /tmp`). Undefined when the argv already has a `--`,
 * when an unknown flag comes before any such word (a typo of one of cordon's flags), and for any
 * other error.
 */
export function dashesCorrection(error: unknown, command: string): string | undefined {
  const e = error as { flags?: unknown; parse?: { input?: ParseInput } } | null;
  const input = e?.parse?.input;
  if (!Array.isArray(e?.flags) || !Array.isArray(input?.argv) || typeof input?.flags !== 'object' || input.flags === null) return undefined;
  const argv = input.argv as unknown[];
  if (!argv.every((word): word is string => typeof word === 'string') || argv.includes('--')) return undefined;
  const at = firstCommandWord(argv, input.flags as Readonly<Record<string, FlagSpec | undefined>>);
  if (at === undefined) return undefined;
  return `${command} ${posixCommand([...argv.slice(0, at), '--', ...argv.slice(at)])}`;
}

/**
 * The index of the first word of `argv` that is neither one of `flags` (`--name`, `--name=value`,
 * `-c`) nor the value of one that takes a value: where the command to run starts. Undefined when
 * a flag that is not one of `flags` comes first, or there is no such word.
 */
function firstCommandWord(argv: readonly string[], flags: Readonly<Record<string, FlagSpec | undefined>>): number | undefined {
  const specs = Object.entries(flags);
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('-') || word === '-') return i;
    const long = word.startsWith('--');
    const name = long ? word.slice(2).split('=')[0]! : word.slice(1);
    const spec = long ? (Object.hasOwn(flags, name) ? flags[name] : undefined) : specs.find(([, s]) => s?.char === name)?.[1];
    if (spec === undefined) return undefined;
    if (spec.type === 'option' && !word.includes('=')) i++;
  }
  return undefined;
}
