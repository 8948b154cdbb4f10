import { toConfiguredId, ux, type Command, type Errors, type Interfaces } from '@oclif/core';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { unknownFlagSuggestions } from './flag-suggestion.js';
import { reportError } from './report-error.js';
import { shownJson } from '../output/json-text.js';
import type { ReportedError } from '../output/error-text.js';
import { usageMessage, type ArgSpecs, type FlagSpecs } from './usage-message.js';

/** The command an error came from, as the error's report needs it. */
export interface ErrorContext {
  readonly config: Interfaces.Config;
  /** oclif's command id (`control:run`), when a command ran. */
  readonly id?: string;
  /** The command's arguments (for naming the one whose value was refused). */
  readonly args?: ArgSpecs;
  /** The command's flags, `json` among them when it takes `--json` (for naming a flag a refused value names: `--format json`). */
  readonly flags?: FlagSpecs;
  /** Whether the user asked for `--json` (the JSON document on stdout instead of text on stderr). */
  readonly json: boolean;
  /** The error once more in the form a CI system reads (report-error.ts `reportError`), when the command prints one. */
  readonly annotation?: (error: ReportedError) => string;
}

/**
 * Reports `error` in cordon's one error form (report-error.ts: `Error:`/`Code:` on stderr, or the
 * JSON document under `json`) when it is cordon's own (`CordonError`: its code, exit and details)
 * or oclif's (a parse error: a value a flag's type or options refuse, a missing argument or flag,
 * a nonexistent flag; or a command's `this.error(…)`: `CORDON_BAD_INPUT` unless it carries a
 * string code, exit as oclif says, normally 2), in one line that still holds oclif's facts (the
 * allowed values; for a mistyped flag the one it most likely meant, also as `details.suggestions`,
 * flag-suggestion.ts) and ends with the command's help (usage-message.ts). (A command that runs
 * another after `--`, given without the `--`, is refused before parsing: command-after-dashes.ts.)
 * Returns the error that ends the process with that exit code and nothing more printed;
 * undefined, printing nothing, for anything else: `this.exit(n)` (EEXIT) and errors nobody raised
 * on purpose, which keep oclif's handling.
 */
export function reportCommandError(error: unknown, context: ErrorContext): Errors.ExitError | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const e = error as Error & { code?: unknown; oclif?: { exit?: unknown } };
  const command = `${context.config.bin} ${context.id === undefined ? '' : toConfiguredId(context.id, context.config)}`.trim();
  // A CordonError thrown by a flag's own parse (directory-flag.ts) comes back in oclif's
  // "Parsing --flag" wrapping: usageMessage puts it back in one line.
  if (error instanceof CordonError) return reportError({ code: error.code, message: usageMessage(error, command, context.args, context.flags), details: error.details }, error.exit, context.json, context.annotation);
  const exit = e.oclif?.exit;
  if (typeof exit !== 'number' || e.code === 'EEXIT') return undefined;
  // `cordon reduce --sesion x`: the flag meant, as a mistyped command gets "did you mean".
  const suggestions = unknownFlagSuggestions(error);
  return reportError(
    { code: typeof e.code === 'string' ? e.code : ERROR_CODES.BAD_INPUT, message: usageMessage(e, command, context.args, context.flags), ...(Object.keys(suggestions).length === 0 ? {} : { details: { suggestions } }) },
    exit,
    context.json,
    context.annotation,
  );
}


/**
 * `catch` of an oclif command class cordon extends without `CordonCommand` (the `plugins`
 * commands): {@link reportCommandError} for `command`, else `fallback` (oclif's own handling).
 * Under `--json` oclif's own would print every enumerable property of the error, a parse error's
 * whole command configuration included. A progress line still running (`Linking plugin ./x...`)
 * is ended with `failed` first: until it ends, oclif holds back what is written to stderr.
 */
export async function catchCommandError(command: Command, error: unknown, fallback: () => Promise<unknown>): Promise<unknown> {
  // oclif's progress line (`Linking plugin ./x...`) holds back everything written to stderr
  // until it stops, and oclif's own catch, which stops it, is skipped here: `plugins link` of a
  // directory oclif refused exited 2 having printed only `Linking plugin ./x...`. Stopped first,
  // as oclif's installer stops it (`… failed`), so the error below is printed.
  if (ux.action.running) ux.action.stop('failed');
  const self = command as unknown as { config: Interfaces.Config; id?: string; ctor: { args?: ArgSpecs; flags?: FlagSpecs; baseFlags?: FlagSpecs; enableJsonFlag?: boolean }; jsonEnabled(): boolean };
  const reported = reportCommandError(error, { config: self.config, id: self.id, args: self.ctor.args, flags: commandFlags(self.ctor), json: self.jsonEnabled() });
  if (reported) throw reported;
  return fallback();
}

/**
 * The flags `ctor` (an oclif command class) takes, as its parse sees them: its own, its base
 * flags, and `json` when it takes `--json` (oclif adds that one at parse time).
 */
export function commandFlags(ctor: { flags?: FlagSpecs; baseFlags?: FlagSpecs; enableJsonFlag?: boolean } | undefined): FlagSpecs {
  return { ...ctor?.baseFlags, ...ctor?.flags, ...(ctor?.enableJsonFlag ? { json: { description: 'Format output as json' } } : {}) };
}

/**
 * `logJson` of an oclif command class cordon extends without `CordonCommand` (the `plugins`
 * commands): the `--json` document as every cordon command prints it (output/json-text.ts
 * `shownJson`). oclif's own wrote it with `JSON.stringify`, which leaves a plugin's name,
 * version or description as its package.json gives it: a bidi override (U+202E) or a C1
 * control reached the terminal raw from `cordon plugins --json` and `plugins inspect --json`.
 */
export function logShownJson(json: unknown): void {
  process.stdout.write(`${shownJson(json, 2)}\n`);
}
