import { cutText } from '@cordon/plugin-api';

/**
 * Longest command text a record keeps, in characters (UTF-16 code units, never splitting a code
 * point): a marker's `command` and `rewritten_command` (uncoalesced/cordon), and each argument and
 * the `command` of a `control run` record.
 */
export const MAX_COMMAND_CHARS = 2000;

/**
 * Most characters a `control run` record keeps of its argv, all arguments together: room for the
 * guard's rewrite (`bash -c <script> cordon-guard <state dir> <command>`, its script about 400
 * characters) with the call's command at its full {@link MAX_COMMAND_CHARS}, which
 * `cordon reduce` joins to the call's marker by (control/guard-join.ts).
 */
export const MAX_RECORDED_ARGV_CHARS = 4 * MAX_COMMAND_CHARS;

/** An argv as a record keeps it: see {@link recordedArgv}. */
export interface RecordedArgv {
  /** The arguments kept, in order, each cut to {@link MAX_COMMAND_CHARS}. */
  readonly argv: string[];
  /** How many arguments were left out at the end (0 when none were). */
  readonly omitted: number;
}

/**
 * `shown` (an argv with its secrets already as `***`: output/redact.ts `redactArgv`) cut for a
 * record: each argument to {@link MAX_COMMAND_CHARS} characters, as a marker cuts a command
 * (hot/summary.ts), and the arguments kept in order while they fit
 * {@link MAX_RECORDED_ARGV_CHARS} together, counting one character between arguments (the last
 * one kept cut to what is left); the rest are counted in `omitted`. Cut after redaction, so a secret at a cut is already `***`, never half
 * shown. A 130 KB argument would otherwise be written whole, JSON-escaped, to the log and to
 * `runs.jsonl` on every call.
 */
export function recordedArgv(shown: readonly string[]): RecordedArgv {
  const argv: string[] = [];
  let left = MAX_RECORDED_ARGV_CHARS;
  for (const arg of shown) {
    if (left <= 0) break;
    const room = Math.min(MAX_COMMAND_CHARS, left);
    const kept = cutText(arg, room);
    argv.push(kept);
    // One more for the space between arguments, so that many empty ones cannot pass either.
    left -= kept.length + 1;
    if (room < MAX_COMMAND_CHARS && kept.length < arg.length) break;
  }
  return { argv, omitted: shown.length - argv.length };
}

/** A command text with its secrets already as `***`, cut to {@link MAX_COMMAND_CHARS} for a record. */
export function recordedCommand(shown: string): string {
  return cutText(shown, MAX_COMMAND_CHARS);
}
