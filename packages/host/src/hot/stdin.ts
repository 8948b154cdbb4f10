import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { DocumentEnd, parseAgentJson } from './payload-json.js';

/** Defaults for {@link readPayload}; overridable by `CORDON_HOOK_STDIN_TIMEOUT_MS` / `CORDON_HOOK_MAX_STDIN_BYTES`. */
export const STDIN_DEFAULTS = Object.freeze({
  /**
   * How long to wait for the rest of an incomplete payload, ms. A complete JSON object is used as
   * soon as it has arrived, whether or not stdin closes; only an incomplete one waits this long.
   */
  timeoutMs: 3000,
  /** Largest payload parsed, bytes (64 MiB); larger input is drained and dropped. */
  maxBytes: 64 * 1024 * 1024,
});

/** Why no payload came out of stdin. */
export type StdinProblem = 'empty' | 'timeout' | 'too-large' | 'not-json' | 'not-object' | 'tty' | 'error';

/** What {@link readPayload} returns: the payload object, or why there is none. */
export type PayloadRead =
  | { readonly ok: true; readonly payload: Record<string, unknown>; readonly bytes: number }
  | { readonly ok: false; readonly problem: StdinProblem; readonly bytes: number; readonly detail?: string };

/**
 * Reads the hook payload from `stream` within a bounded time: resolves as soon as a complete
 * JSON object or array has arrived (the writer may keep the stream open: issue 11 item 4), at
 * end of input, after `timeoutMs` (an incomplete document and a stream that never closed), or
 * on a stream error; bytes past `maxBytes` are drained and discarded. Invalid UTF-8 decodes to
 * U+FFFD; a leading BOM is dropped; raw control characters inside strings are tolerated
 * ({@link parseAgentJson}). Only a JSON object is a payload. Never rejects.
 */
export function readPayload(stream: Readable & { isTTY?: boolean }, options: { timeoutMs?: number; maxBytes?: number } = {}): Promise<PayloadRead> {
  const timeoutMs = options.timeoutMs ?? STDIN_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? STDIN_DEFAULTS.maxBytes;
  if (stream.isTTY) return Promise.resolve({ ok: false, problem: 'tty', bytes: 0 });
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    const end = new DocumentEnd();
    let bytes = 0;
    let settled = false;
    const finish = (result: PayloadRead): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      // Stop reading; the caller exits the process, which closes the pipe.
      stream.pause();
      resolvePromise(result);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buf.length;
      if (bytes <= maxBytes) chunks.push(buf);
      if (end.push(buf)) {
        const read = decode(Buffer.concat(chunks), bytes, maxBytes);
        if (read.ok || read.problem === 'too-large') finish(read);
      }
    };
    const onEnd = (): void => finish(decode(Buffer.concat(chunks), bytes, maxBytes));
    const onError = (error: Error): void => finish({ ok: false, problem: 'error', bytes, detail: error.message });
    const timer = setTimeout(() => finish({ ok: false, problem: 'timeout', bytes }), timeoutMs);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

/** Size of one read from a descriptor, bytes. */
const FD_CHUNK = 64 * 1024;
/** Pause between polls of an empty non-blocking pipe, ms. */
const POLL_MS = 2;

/**
 * {@link readPayload} for a file descriptor (the hook process's fd 0), with the same bounds and
 * results, avoiding `process.stdin` where it safely can: that stream loads Node's stream and
 * socket modules, about 4 ms of every tool call (`npm run bench:hook`).
 *
 * - A regular file or the null device is read synchronously (it cannot block).
 * - A pipe on Linux (what Codex and Hermes give their hooks, and `… | cordon hook`) is reopened
 *   through `/proc/self/fd/<fd>` with `O_NONBLOCK`, a new open file description, so the agent's
 *   end is untouched, and polled every {@link POLL_MS} ms until a complete document has arrived,
 *   end of input, or the time limit.
 *   (A blocking read cannot honour the limit, and a pending `fs.read` on the thread pool would
 *   keep the process from exiting.)
 * - A socket (Node-based agents get a socketpair from libuv), a terminal, or anything else goes to
 *   `fallback()`'s stream through {@link readPayload}.
 */
export function readPayloadFd(fd: number, fallback: () => Readable & { isTTY?: boolean }, options: { timeoutMs?: number; maxBytes?: number } = {}): Promise<PayloadRead> {
  const timeoutMs = options.timeoutMs ?? STDIN_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? STDIN_DEFAULTS.maxBytes;
  let kind: 'file' | 'pipe' | 'other' = 'other';
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() || (stat.isCharacterDevice() && isNullDevice(stat.rdev))) kind = 'file';
    else if (stat.isFIFO() && process.platform === 'linux') kind = 'pipe';
  } catch {
    kind = 'other';
  }
  if (kind === 'file') return Promise.resolve(readSyncToEnd(fd, maxBytes));
  let pipe = -1;
  if (kind === 'pipe') {
    try {
      pipe = openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      pipe = -1;
    }
  }
  if (pipe < 0) return readPayload(fallback(), options);
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    const end = new DocumentEnd();
    const buf = Buffer.allocUnsafe(FD_CHUNK);
    const deadline = Date.now() + timeoutMs;
    let bytes = 0;
    const finish = (result: PayloadRead): void => {
      closeSync(pipe);
      resolvePromise(result);
    };
    const poll = (): void => {
      for (;;) {
        let n: number;
        try {
          n = readSync(pipe, buf, 0, FD_CHUNK, null);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return finish({ ok: false, problem: 'error', bytes, detail: (error as Error).message });
          if (Date.now() >= deadline) return finish({ ok: false, problem: 'timeout', bytes });
          setTimeout(poll, POLL_MS);
          return;
        }
        if (n === 0) return finish(decode(Buffer.concat(chunks), bytes, maxBytes));
        bytes += n;
        // Past the limit the rest is still drained (so the agent's write never fails), not kept.
        if (bytes <= maxBytes) chunks.push(Buffer.from(buf.subarray(0, n)));
        if (end.push(buf.subarray(0, n))) {
          // A complete document is used at once: the writer may never close its end.
          const read = decode(Buffer.concat(chunks), bytes, maxBytes);
          if (read.ok || read.problem === 'too-large') return finish(read);
        }
      }
    };
    poll();
  });
}

/** Whether `rdev` is the null device's (an empty stdin, e.g. `< /dev/null`). */
function isNullDevice(rdev: number): boolean {
  try {
    return rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/** Reads a descriptor that cannot block to its end, keeping at most `maxBytes` bytes. */
function readSyncToEnd(fd: number, maxBytes: number): PayloadRead {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    const buf = Buffer.allocUnsafe(FD_CHUNK);
    for (;;) {
      const n = readSync(fd, buf, 0, FD_CHUNK, null);
      if (n === 0) break;
      bytes += n;
      if (bytes > maxBytes) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
  } catch (error) {
    return { ok: false, problem: 'error', bytes, detail: (error as Error).message };
  }
  return decode(Buffer.concat(chunks), bytes, maxBytes);
}

function decode(buffer: Buffer, bytes: number, maxBytes: number): PayloadRead {
  if (bytes > maxBytes) return { ok: false, problem: 'too-large', bytes };
  let text = buffer.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { ok: false, problem: 'empty', bytes };
  let value: unknown;
  try {
    value = parseAgentJson(text);
  } catch (error) {
    return { ok: false, problem: 'not-json', bytes, detail: (error as Error).message };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: 'not-object', bytes };
  return { ok: true, payload: value as Record<string, unknown>, bytes };
}
