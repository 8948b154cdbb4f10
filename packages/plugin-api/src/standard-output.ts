import { fstatSync, writeSync } from 'node:fs';
import { systemErrorWords } from './system-error.js';

// Output for commands that print and exit (the host's fast routes, `cordon pcodx show|ids|turn`):
// straight to the descriptor, without creating `process.stdout` or `process.stderr`, whose
// streams load Node's socket and stream modules: about 5 ms of every such command on the 2-core
// VM when the descriptor is a pipe (`npm run bench:envelope`, `bench:ledger`'s cold rows).
// Whether a descriptor is a terminal: `isTerminal` in ./legacy-binding.ts.

/** How a standard descriptor is written: with write(2), through its stream, or not at all (its reader has gone). */
type Route = 'direct' | 'stream' | 'closed';

const routes = new Map<1 | 2, Route>();

/**
 * Writes `text` (UTF-8) to standard output (`fd` 1) or standard error (2), in order with every
 * earlier call for that descriptor:
 *
 * - A pipe, a socket (what a Node parent's `'pipe'` is: libuv makes a socket pair), a regular file
 *   or a character device (a terminal, /dev/null) is written with write(2) directly, without
 *   creating `process.stdout`/`process.stderr`. A blocking pipe blocks the writer until its
 *   reader catches up, so nothing queues in memory.
 * - A reader that closed its end (`EPIPE`, or `ECONNRESET` on a socket; `cordon check | head -c 10`) ends the output quietly:
 *   this and later writes to that descriptor are dropped, as the host's bin/run.cjs does for the
 *   streams, and the exit code stays the command's.
 * - A descriptor left non-blocking by whoever shares it (`EAGAIN`) gets the rest, and every later
 *   write, through the stream, which waits for the reader; so does Windows and anything unusual.
 *   When the stream then holds more than its buffer, the returned promise resolves once it has
 *   drained, failed or closed: a caller that waits for it holds about one write at a time.
 *
 * - Any other failure of write(2) (a full disk: `ENOSPC`, `EDQUOT`, `EFBIG`; `EIO`) ends that
 *   descriptor's output too, but not quietly: {@link outputFailed} says so on standard error and
 *   the process exits non-zero, so a script does not take a cut file for the whole output.
 *
 * Returns nothing when the text has been written, `false` when it was dropped because the reader
 * has gone or the descriptor failed (a producer can stop making output no one reads: `pcodx show
 * | head`), a promise as above. Never throws for the descriptor's errors.
 */
export function writeOutput(fd: 1 | 2, text: string): void | false | Promise<void> {
  let route = routes.get(fd);
  if (route === undefined) {
    route = process.platform !== 'win32' && writtenDirectly(fd) ? 'direct' : 'stream';
    routes.set(fd, route);
  }
  if (route === 'closed') return false;
  if (route === 'stream') return throughStream(fd, text);
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ECONNRESET: a socket (a Node parent's 'pipe') whose reader closed with bytes unread.
      if (code === 'EPIPE' || code === 'ECONNRESET') {
        routes.set(fd, 'closed');
        return false;
      }
      if (code !== 'EAGAIN') {
        routes.set(fd, 'closed');
        outputFailed(fd, error);
        return false;
      }
      // The stream keeps the rest in order; later writes queue behind it.
      routes.set(fd, 'stream');
      return throughStream(fd, bytes.subarray(done));
    }
  }
}

/**
 * Set on `process` once the failure of standard output has been said (here or by the host's
 * bin/run.cjs, which uses the same registered symbol), so it is said once.
 */
const STDOUT_FAILURE_SAID = Symbol.for('cordon.stdout-failure-said');

/**
 * Reports that writing standard output (`fd` 1) or standard error (2) failed with `error` (not a
 * closed reader: `ENOSPC`, `EIO` …): one line on standard error when it was standard output that
 * failed, `cordon: could not write standard output: no space left on the device (ENOSPC); what
 * was printed is incomplete` (once per process, however many writes failed), and the process's exit code made 1 if it would otherwise be 0,
 * whatever the command sets later (a listener on `exit`). The host's bin/run.cjs does the same for
 * the streams of its oclif commands. Never throws.
 */
export function outputFailed(fd: 1 | 2, error: unknown): void {
  process.once('exit', () => {
    if (!process.exitCode) process.exitCode = 1;
  });
  if (fd !== 1) return;
  // Said once per process: a command that wrote both here and through process.stdout (the
  // oclif pcodx commands) fails on both, and bin/run.cjs reports the stream's failure too.
  const said = process as unknown as Record<symbol, boolean>;
  if (said[STDOUT_FAILURE_SAID]) return;
  said[STDOUT_FAILURE_SAID] = true;
  const code = (error as { code?: unknown } | null)?.code;
  try {
    writeSync(2, `cordon: could not write standard output: ${systemErrorWords(error)}${typeof code === 'string' ? ` (${code})` : ''}; what was printed is incomplete\n`);
  } catch {
    // Standard error failed too: the exit code is all that is left to say it.
  }
}

/** Writes through `process.stdout`/`process.stderr`; a promise when the stream asks the writer to wait. */
function throughStream(fd: 1 | 2, chunk: string | Uint8Array): void | Promise<void> {
  const stream = fd === 1 ? process.stdout : process.stderr;
  if (stream.write(chunk) || stream.destroyed) return;
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
    stream.on('close', done);
  });
}

/** Whether `fd` is a pipe, a socket, a regular file or a character device, written with write(2) directly. */
function writtenDirectly(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket() || stat.isFile() || stat.isCharacterDevice();
  } catch {
    return false;
  }
}
