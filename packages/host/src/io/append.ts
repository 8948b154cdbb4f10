import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

// Read-write so the torn-tail check reads the same descriptor (one open per append on the hook's
// path); pread ignores O_APPEND. A FIFO planted at the path opens without blocking, too.
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);
const NEWLINE = 0x0a;

/** The write {@link appendLine} makes: `writeSync(fd, buffer, offset, length)`, returning the bytes written. */
export interface AppendIo {
  write(fd: number, buffer: Buffer, offset: number, length: number): number;
}

const REAL_IO: AppendIo = { write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length) };

/**
 * Appends one line (`line` must end with `\n` and hold no other newline) so that the file holds
 * it whole or not at all:
 *
 * - one `write(2)` on an `O_APPEND` descriptor (POSIX positions each append at the end
 *   atomically, so concurrent writers of one file neither interleave nor lose lines);
 * - a file whose last byte is not a newline (a writer died or the disk filled mid-line) gets a
 *   newline first, so the torn fragment stays its own (skippable) line and this line is not
 *   glued onto it;
 * - a short write (ENOSPC part-way) is cut back off the file when nothing was appended after
 *   it, so no fragment is left; the error propagates;
 * - created owner-only (0600) and never through a symbolic link (`O_NOFOLLOW`);
 * - only to a regular file with one link: a FIFO or device planted at the path is not written
 *   (a FIFO nobody reads would block the writer once its buffer fills), nor a hard link that
 *   would carry the line into another file of the user's (`markers.jsonl` linked to
 *   `~/.bashrc`).
 *
 * `io` replaces the one `write(2)` (tests inject a short write, as a full disk gives).
 *
 * @throws the I/O error (ENOSPC, EIO, ELOOP for a link), or an error with code `EINVAL` naming
 * the path for a file that is not regular or has other links; the caller decides whether to log it.
 */
export function appendLine(path: string, line: string | Uint8Array, io: AppendIo = REAL_IO): void {
  const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : Buffer.from(line);
  const fd = openSync(path, APPEND_FLAGS, 0o600);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.nlink !== 1) {
      const what = stat.isFile() ? `has ${stat.nlink} hard links` : 'is not a regular file';
      throw Object.assign(new Error(`not appending to ${path}: it ${what}`), { code: 'EINVAL' });
    }
    const size = stat.size;
    let out = bytes;
    if (size > 0) {
      const last = Buffer.alloc(1);
      if (readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== NEWLINE) out = Buffer.concat([Buffer.of(NEWLINE), bytes]);
    }
    const written = io.write(fd, out, 0, out.length);
    if (written !== out.length) {
      // Take the fragment back when it is still the file's tail (no other append came after).
      try {
        const now = fstatSync(fd).size;
        if (now === size + written) ftruncateSync(fd, size);
      } catch {
        // The next append's newline repair handles it.
      }
      throw Object.assign(new Error(`short append to ${path}: ${written} of ${out.length} bytes`), { code: 'ENOSPC' });
    }
  } finally {
    closeSync(fd);
  }
}

/** What {@link splitJsonLines} found. */
export interface JsonLines<T> {
  /** Parsed values that passed `accept`, in file order. */
  readonly values: T[];
  /** 1-based numbers of lines that did not parse or were not accepted (torn or foreign lines). */
  readonly badLines: number[];
}

/**
 * Splits JSON-lines text tolerantly: blank lines are ignored, a line that does not parse (a torn
 * append) or that `accept` rejects is counted in `badLines` and skipped, never fatal.
 */
export function splitJsonLines<T>(text: string, accept: (value: unknown) => value is T): JsonLines<T> {
  const values: T[] = [];
  const badLines: number[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (accept(value)) values.push(value);
      else badLines.push(i + 1);
    } catch {
      badLines.push(i + 1);
    }
  }
  return { values, badLines };
}
