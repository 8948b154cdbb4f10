import { closeSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { JsonLines } from './append.js';
import { openRegularFile } from './safe-read.js';

/** Bytes read per `read(2)` by {@link forEachLine}. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The longest line {@link forEachLine} gives, in characters (1 MiB). Cordon's own lines are far
 * shorter (a marker's longest fields are bounded to 4,096 and 2,000 characters, MARKERS.md; a
 * sample is about 80), so a longer line is damage or not cordon's: a file of NUL bytes without a
 * newline (a 2 GiB sparse file) was held whole, 2.7 GB of memory, until V8 refused the string.
 */
export const MAX_LINE_CHARS = 1 << 20;

/** Options of {@link forEachLine}. */
export interface LineOptions {
  /** Lines longer than this many characters are not given to `onLine` (default {@link MAX_LINE_CHARS}). */
  readonly maxLineChars?: number;
  /** Called, with its 1-based number, for each line over `maxLineChars` instead of `onLine`; it is never held in memory. */
  readonly onLongLine?: (lineNo: number) => void;
}

/**
 * Calls `onLine(line, lineNo)` for every line of the UTF-8 file at `path`, reading it in 64 KiB
 * chunks, so a large JSON-lines file (a session's markers and samples) is never held whole in
 * memory. Lines are the pieces `text.split('\n')` of the whole file would give, with the same
 * 1-based numbers, except that a last piece that is empty (the file ends with a newline, or is
 * empty) is not passed: a `\r` before the newline stays on the line (CRLF files), an unterminated
 * last line (a torn append) is passed as it is, invalid UTF-8 reads as U+FFFD as
 * `readFileSync(path, 'utf8')` reads it, and a character split across chunks is joined. A line
 * longer than `options.maxLineChars` ({@link MAX_LINE_CHARS}) is given to `options.onLongLine`
 * instead, by number only: what was read of it is dropped as soon as it is too long, so memory
 * stays bounded whatever the file holds.
 *
 * Only a regular file is read, opened without blocking (safe-read.ts `openRegularFile`, links
 * followed): a FIFO in its place would otherwise block the reader until someone writes to it,
 * and a directory fail with a bare `EISDIR`.
 *
 * @throws {UnsafeReadError} `missing` (no file) or `not-regular` (a directory, FIFO, socket or
 *   device); other open or read errors as Node throws them; whatever `onLine` throws. The file is
 *   closed either way.
 */
export function forEachLine(path: string, onLine: (line: string, lineNo: number) => void, options: LineOptions = {}): void {
  const max = options.maxLineChars ?? MAX_LINE_CHARS;
  const { fd } = openRegularFile(path, { maxBytes: Number.POSITIVE_INFINITY, links: 'always' });
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    // The unterminated start of the next line, as the chunks that hold it (a long line is joined
    // once, when its newline arrives, not re-copied at every chunk), and how long it is.
    let pending: string[] = [];
    let pendingChars = 0;
    // The line read so far is longer than `max`: its pieces are dropped until it ends.
    let tooLong = false;
    let lineNo = 0;
    const keep = (piece: string): void => {
      if (tooLong || piece === '') return;
      pendingChars += piece.length;
      if (pendingChars > max) {
        tooLong = true;
        pending = [];
      } else pending.push(piece);
    };
    const end = (last: string): void => {
      keep(last);
      lineNo++;
      if (tooLong) options.onLongLine?.(lineNo);
      else onLine(pending.length === 1 ? pending[0]! : pending.join(''), lineNo);
      pending = [];
      pendingChars = 0;
      tooLong = false;
    };
    const take = (text: string): void => {
      let from = 0;
      let newline: number;
      while ((newline = text.indexOf('\n', from)) !== -1) {
        end(text.slice(from, newline));
        from = newline + 1;
      }
      keep(from === 0 ? text : text.slice(from));
    };
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      take(decoder.write(buffer.subarray(0, n)));
    }
    take(decoder.end());
    if (pending.length || tooLong) end('');
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link splitJsonLines} over the file at `path`, read line by line with {@link forEachLine}
 * instead of whole: blank lines are ignored, a line that does not parse (a torn append), that
 * `accept` rejects or that is longer than {@link MAX_LINE_CHARS} is counted in `badLines` (1-based
 * line numbers) and skipped, never fatal.
 *
 * @throws as {@link forEachLine} does (`UnsafeReadError` `missing` for a missing file).
 */
export function readJsonLines<T>(path: string, accept: (value: unknown) => value is T): JsonLines<T> {
  const values: T[] = [];
  const badLines: number[] = [];
  forEachLine(path, (line, lineNo) => {
    // `{` first: a JSON object line, not blank (spares the trim's copy on every line).
    if (line.charCodeAt(0) !== 0x7b && line.trim() === '') return;
    try {
      const value: unknown = JSON.parse(line);
      if (accept(value)) values.push(value);
      else badLines.push(lineNo);
    } catch {
      badLines.push(lineNo);
    }
  }, { onLongLine: (lineNo) => badLines.push(lineNo) });
  return { values, badLines };
}
