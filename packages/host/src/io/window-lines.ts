import type { FileWindow } from './safe-read.js';

/** The whole lines of a {@link FileWindow}, and where the next read should start. */
export interface WindowLines {
  /** Lines that lie whole inside the window, in file order, without their newlines. */
  readonly lines: string[];
  /**
   * Offset just past the last newline read: a line still being appended (no newline yet) is read
   * again from here next time. Equals the window's start when it holds no newline.
   */
  readonly next: number;
  /** True when the window starts after the file's start (older lines were not read). */
  readonly cut: boolean;
}

const NEWLINE = 0x0a;

/**
 * Splits a window read from the end of a JSON-lines file into its whole lines: the first piece
 * is dropped when the window starts mid-file and not right after a newline (it is the end of a
 * line cut by the window), and the last piece when no newline ends it (a line being appended, or
 * a torn one). Bytes that are not UTF-8 read as U+FFFD.
 * @param startsLine true when the byte before the window is known to be a newline (a follower
 *   resuming at its {@link WindowLines.next}); ignored for a window at offset 0.
 */
export function windowLines(window: FileWindow, startsLine = false): WindowLines {
  const { bytes, start } = window;
  let from = 0;
  if (start > 0 && !startsLine) {
    const first = bytes.indexOf(NEWLINE);
    if (first === -1) return { lines: [], next: start, cut: true };
    from = first + 1;
  }
  const last = bytes.lastIndexOf(NEWLINE);
  if (last < from) return { lines: [], next: start + from, cut: start > 0 };
  const lines = bytes.toString('utf8', from, last).split('\n');
  return { lines, next: start + last + 1, cut: start > 0 };
}
