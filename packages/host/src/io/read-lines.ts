import { closeSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { JsonLines } from './append.js';
import { openRegularFile } from './safe-read.js';

/** Bytes read per `read(2)` by {@link forEachLine}. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Calls `onLine(line, lineNo)` for every line of the UTF-8 file at `path`, reading it in 64 KiB
 * chunks, so a large JSON-lines file (a session's markers and samples) is never held whole in
 * memory. Lines are the pieces `text.split('\n')` of the whole file would give, with the same
 * 1-based numbers, except that a last piece that is empty (the file ends with a newline, or is
 * empty) is not passed: a `\r` before the newline stays on the line (CRLF files), an unterminated
 * last line (a torn append) is passed as it is, invalid UTF-8 reads as U+FFFD as
 * `readFileSync(path, 'utf8')` reads it, and a character split across chunks is joined.
 *
 * Only a regular file is read, opened without blocking (safe-read.ts `openRegularFile`, links
 * followed): a FIFO in its place would otherwise block the reader until someone writes to it,
 * and a directory fail with a bare `EISDIR`.
 *
 * @throws {UnsafeReadError} `missing` (no file) or `not-regular` (a directory, FIFO, socket or
 *   device); other open or read errors as Node throws them; whatever `onLine` throws. The file is
 *   closed either way.
 */
export function forEachLine(path: string, onLine: (line: string, lineNo: number) => void): void {
  const { fd } = openRegularFile(path, { maxBytes: Number.POSITIVE_INFINITY, links: 'always' });
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    // The unterminated start of the next line, as the chunks that hold it (a long line is joined
    // once, when its newline arrives, not re-copied at every chunk).
    let pending: string[] = [];
    let lineNo = 0;
    const take = (text: string): void => {
      let from = 0;
      let newline = text.indexOf('\n');
      if (newline === -1) {
        if (text !== '') pending.push(text);
        return;
      }
      if (pending.length) {
        pending.push(text.slice(0, newline));
        onLine(pending.join(''), ++lineNo);
        pending = [];
      } else onLine(text.slice(0, newline), ++lineNo);
      from = newline + 1;
      while ((newline = text.indexOf('\n', from)) !== -1) {
        onLine(text.slice(from, newline), ++lineNo);
        from = newline + 1;
      }
      if (from < text.length) pending.push(text.slice(from));
    };
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      take(decoder.write(buffer.subarray(0, n)));
    }
    take(decoder.end());
    if (pending.length) onLine(pending.join(''), ++lineNo);
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link splitJsonLines} over the file at `path`, read line by line with {@link forEachLine}
 * instead of whole: blank lines are ignored, a line that does not parse (a torn append) or that
 * `accept` rejects is counted in `badLines` (1-based line numbers) and skipped, never fatal.
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
  });
  return { values, badLines };
}
