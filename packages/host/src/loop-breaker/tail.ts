import { readRegularFileWindow, UnsafeReadError, type FileWindow } from '../io/safe-read.js';
import { windowLines } from '../io/window-lines.js';
import type { EarlierEnd } from './rule.js';

/**
 * How much of a session's marker log the loop breaker reads, from its end: 256 KiB, some hundreds
 * of calls (a tool call writes two lines of a few hundred bytes). A run of failures longer than
 * that is still counted on from the last marker the breaker answered (`loop_failures`).
 */
export const LOOP_WINDOW_BYTES = 256 * 1024;

/**
 * The `tool_end` markers of shell calls in the last `maxBytes` of the marker log at `path`,
 * newest first, parsed lazily (the walk usually stops after a few). Only the window's whole lines
 * count (`windowLines`: a first line the window cuts and an unterminated last one are skipped), and
 * of those only lines that are JSON; a missing log reads as empty. Never follows a link and never
 * blocks (`readRegularFileWindow`).
 */
export function* recentShellEnds(path: string, maxBytes = LOOP_WINDOW_BYTES): Generator<EarlierEnd> {
  let window: FileWindow;
  try {
    window = readRegularFileWindow(path, { maxBytes });
  } catch (error) {
    if (error instanceof UnsafeReadError && error.reason === 'missing') return;
    throw error;
  }
  // Whether the window is cut is where it starts, not how long it is: a log of exactly
  // `maxBytes` is read whole, its first line included.
  const { lines } = windowLines(window);
  for (let i = lines.length - 1; i >= 0; i--) {
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
