import { fstatSync, writeSync } from 'node:fs';

/**
 * Writes `text` (UTF-8) to standard output or standard error, for the fast routes that print
 * once and exit (`cordon check`): written straight to the descriptor when it is a pipe, a socket
 * (what a Node parent's `'pipe'` is: libuv makes a socket pair), a file or a character device (a
 * terminal, /dev/null), without creating `process.stdout`, whose stream loads Node's socket and
 * stream modules (several ms per check on a 2-core VM, `npm run bench:envelope`). Same bytes,
 * same order as `process.stdout.write`.
 *
 * - A reader that closed its end (`EPIPE`, `cordon check | head -c 10`) ends the output quietly:
 *   this and later writes to that descriptor are dropped, as bin/run.cjs's `quietClosedPipes`
 *   does for the streams, and the exit code stays the command's.
 * - A descriptor left non-blocking by whoever shares it (`EAGAIN`) gets the rest through the
 *   stream, which waits for the reader; so does Windows and anything unusual.
 *
 * Throws only what the stream's own write would (an unexpected error of the descriptor).
 */
export function writeOut(fd: 1 | 2, text: string): void {
  if (closed.has(fd)) return;
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  if (process.platform === 'win32' || !direct(fd)) {
    stream().write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        closed.add(fd);
        return;
      }
      if (code !== 'EAGAIN') throw error;
      stream().write(bytes.subarray(done));
      return;
    }
  }
}

/** Descriptors whose reader has gone (`EPIPE`): later output to them is dropped. */
const closed = new Set<number>();

/** Whether `fd` is a pipe, a socket, a regular file or a character device, written with `write(2)` directly. */
function direct(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket() || stat.isFile() || stat.isCharacterDevice();
  } catch {
    return false;
  }
}
