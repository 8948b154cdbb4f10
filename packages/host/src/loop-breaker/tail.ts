import { readRegularFileTail, UnsafeReadError } from '../io/safe-read.js';
import type { EarlierEnd } from './rule.js';

/**
 * How much of a session's marker log the loop breaker reads, from its end: 256 KiB, some hundreds
 * of calls (a tool call writes two lines of a few hundred bytes). A run of failures longer than
 * that is still counted on from the last marker the breaker answered (`loop_failures`).
 */
export const LOOP_WINDOW_BYTES = 256 * 1024;

/**
 * The `tool_end` markers of shell calls in the last `maxBytes` of the marker log at `path`,
 * newest first, parsed lazily (the walk usually stops after a few). The first line of the window
 * may be cut and is skipped, as are lines that are not JSON; a missing log reads as empty. Never
 * follows a link and never blocks (`readRegularFileTail`).
 */
export function* recentShellEnds(path: string, maxBytes = LOOP_WINDOW_BYTES): Generator<EarlierEnd> {
  let tail: Buffer;
  try {
    tail = readRegularFileTail(path, { maxBytes });
  } catch (error) {
    if (error instanceof UnsafeReadError && error.reason === 'missing') return;
    throw error;
  }
  const lines = tail.toString('utf8').split('\n');
  // The window starts mid-line unless it holds the whole file: that first piece is not a marker.
  const first = tail.length < maxBytes ? 0 : 1;
  for (let i = lines.length - 1; i >= first; i--) {
    const line = lines[i]!;
    // Cheap test before parsing: only shell tool ends matter.
    if (!line.includes('"tool_end"') || !line.includes('"shell"')) continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === 'object') yield value as EarlierEnd;
    } catch {
      // A torn or foreign line: not a marker.
    }
  }
}
