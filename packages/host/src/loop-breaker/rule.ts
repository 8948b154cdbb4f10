import { normaliseShellCommand } from './normalise.js';

/** The fields of an earlier `tool_end` marker the counting rule reads (MARKERS.md). */
export interface EarlierEnd {
  readonly event?: unknown;
  readonly tool?: unknown;
  readonly command?: unknown;
  readonly exit_status?: unknown;
  readonly loop_failures?: unknown;
  readonly cwd?: unknown;
}

/** What {@link countFailures} found. */
export interface FailureCount {
  /** Consecutive failures of the command, the current call included (≥ 1). */
  readonly failures: number;
  /** True when the loop breaker already answered an earlier failure of the same run. */
  readonly answeredBefore: boolean;
}

/**
 * The counting rule of the loop breaker (docs/hooks.md "The loop breaker"): how many times in a
 * row the current, failed shell call's command has failed in this session. `earlier` holds the
 * session's markers newest first; only `tool_end` markers of shell calls whose normalised command
 * ({@link normaliseShellCommand}) equals `command`'s, run in the same working directory, count
 * (`cwd`: a marker or a call without one matches any; the same words in another directory are
 * another command, as an agent that moves to where the command can work has changed something):
 *
 * - a failed one adds one failure;
 * - an ok one, or one whose outcome the agent did not tell (`unknown`), ends the run: the command
 *   did not fail every time;
 * - every other marker (other commands, edits, reads, turn ends) is passed over: an agent that
 *   edits a file and runs the same failing command again is still retrying it unchanged.
 *
 * A marker on which the breaker answered carries the run's count (`loop_failures`), so the walk
 * stops there and adds it. `command` and the markers' commands are compared as stored (at most
 * 2,000 characters).
 */
export function countFailures(command: string, earlier: Iterable<EarlierEnd>, cwd?: string): FailureCount {
  const letters = wordLetters(command);
  // Split (shlex) only once a marker's command has the same letters: a first failure never loads it.
  let key: string | undefined;
  let failures = 1;
  for (const m of earlier) {
    if (m.event !== 'tool_end' || m.tool !== 'shell' || typeof m.command !== 'string') continue;
    if (cwd !== undefined && typeof m.cwd === 'string' && m.cwd !== cwd) continue;
    // Cheap test first: commands with other letters cannot normalise alike.
    if (wordLetters(m.command) !== letters) continue;
    key ??= normaliseShellCommand(command);
    if (normaliseShellCommand(m.command) !== key) continue;
    if (m.exit_status !== 'failed') break;
    const counted = m.loop_failures;
    if (typeof counted === 'number' && Number.isInteger(counted) && counted > 0) return { failures: failures + counted, answeredBefore: true };
    failures++;
  }
  return { failures, answeredBefore: false };
}

/**
 * A command without its white space, quotes and backslashes. Splitting into words only removes
 * those (unquoted white space, quoting, escapes), so two commands with the same words have the
 * same letters: a difference here spares the shlex split. (A bash `$'…'` string, whose escapes
 * shlex decodes, is the exception: it only ever counts as another command, never as the same.)
 */
function wordLetters(command: string): string {
  return command.replace(/[\s'"\\]/g, '');
}
