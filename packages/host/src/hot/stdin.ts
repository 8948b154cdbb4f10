import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { DocumentEnd, parseAgentJson } from './payload-json.js';
import { PayloadReducer, type ReducedPayload } from './payload-reduce.js';
import { UV_EOF, uvPipeBinding, type UvPipeHandle } from '../util/legacy-binding.js';

/** Defaults for {@link readPayload}; overridable by `CORDON_HOOK_STDIN_TIMEOUT_MS` / `CORDON_HOOK_MAX_STDIN_BYTES`. */
export const STDIN_DEFAULTS = Object.freeze({
  /**
   * How long to wait for the rest of an incomplete payload, ms. A complete JSON object is used as
   * soon as it has arrived, whether or not stdin closes; only an incomplete one waits this long.
   */
  timeoutMs: 3000,
  /**
   * Largest payload parsed whole, bytes (64 MiB). A larger one is read on incrementally and only
   * its reduced form kept (`payload-reduce.ts`; `oversized` in the result), or, when it is not a
   * JSON object, drained and dropped.
   */
  maxBytes: 64 * 1024 * 1024,
});

/** Why no payload came out of stdin. */
export type StdinProblem = 'empty' | 'timeout' | 'too-large' | 'not-json' | 'not-object' | 'tty' | 'error';

/** What {@link readPayload} returns: the payload object, or why there is none. */
export type PayloadRead =
  | {
      readonly ok: true;
      readonly payload: Record<string, unknown>;
      readonly bytes: number;
      readonly oversized?: OversizedPayload;
      /**
       * Bytes that came in the same read as the document's end, after it, when they are not all
       * white space (`{"a":1} garbage`: 8): left out of the payload, for the log to say so. Only
       * what that read brought is counted: stdin is not read past the document, so bytes in a
       * later read are never seen, and the verdict does not depend on this number.
       */
      readonly ignoredBytes?: number;
    }
  | { readonly ok: false; readonly problem: StdinProblem; readonly bytes: number; readonly detail?: string };

/**
 * How a payload over the size limit was read: `payload` is its reduced form
 * ({@link PayloadReducer}: long strings kept as their skeletons), and `cuts` says where it may
 * lack something that counts.
 */
export type OversizedPayload = Pick<ReducedPayload, 'cuts' | 'cutEverywhere'>;

/**
 * The bytes of one payload as they arrive, from any source: keeps them up to `maxBytes` and tells
 * when a complete JSON document is in ({@link DocumentEnd}). Past `maxBytes` the kept bytes and
 * every later chunk go through a {@link PayloadReducer} and are released, so memory stays
 * bounded and the writer is drained, never blocked. Every reader below feeds one of these.
 *
 * The payload is the first JSON document on stdin and nothing after it: the bytes up to its
 * closing `}` (or `]`) are judged, whether they parse, whether they are an object, whether they
 * are over `maxBytes`, and whatever follows it in the same chunk is left out, as a later chunk
 * never read would be. So the verdict on the same bytes does not depend on how they were cut
 * into reads: `{"a":1} garbage`, `{"a":1}{"b":2}` and `{"a":1}\n\n` are all `{"a":1}`, in one
 * read or two. Bytes other than white space that came in the read that ended the document are
 * counted (`ignoredBytes`), for the hook's log. (Refusing such input instead would need the rest of the stream, and agents may
 * keep stdin open after the payload: the hook would wait out its time limit on every call. A
 * refused payload also leaves the call unjudged, so accepting the document the agent sent first
 * keeps the guard on.)
 */
class PayloadCollector {
  #chunks: Uint8Array[] = [];
  readonly #end = new DocumentEnd();
  readonly #maxBytes: number;
  #reducer: PayloadReducer | undefined;
  /** Why the reducer gave up (not JSON), once it has. */
  #reduceFailure: string | undefined;
  /** Bytes of the payload received so far: up to the document's end once it is complete, else every byte read. */
  bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Whether a chunk of `n` bytes pushed next may be held after {@link push} returns: then the
   * caller must hand over bytes it will not reuse. Otherwise (past the size limit, where the
   * reducer copies what it keeps, or a chunk that completes the document, whose result is made
   * within the call) a read buffer can be pushed as it is and reused: a large payload then makes
   * no garbage per read, which Node 24's collector let pile up to 190 MiB for 256 MiB of input.
   */
  keeps(n: number): boolean {
    return !this.#end.complete && this.bytes + n <= this.#maxBytes;
  }

  /**
   * Adds a chunk, held only as {@link keeps} says. Returns the result once the chunk completes a
   * document (its verdict: the payload, or why it is none), otherwise `undefined` (read on). A
   * writer may keep its end open after the document; bytes after it are not read as part of it.
   */
  push(chunk: Uint8Array): PayloadRead | undefined {
    if (this.#end.complete) return undefined;
    const completes = this.#end.push(chunk);
    const part = completes ? chunk.subarray(0, this.#end.endOffset) : chunk;
    this.bytes += part.length;
    if (this.bytes <= this.#maxBytes) this.#chunks.push(part);
    else this.#reduce(part);
    if (!completes) return undefined;
    const read = this.end();
    const ignored = chunk.length - this.#end.endOffset;
    return read.ok && ignored > 0 && !blank(chunk, this.#end.endOffset) ? { ...read, ignoredBytes: ignored } : read;
  }

  /** Feeds the reducer, starting it (with the bytes kept so far, then released) on the first chunk past the limit. */
  #reduce(chunk: Uint8Array): void {
    if (this.#reduceFailure !== undefined) return;
    try {
      if (!this.#reducer) {
        this.#reducer = new PayloadReducer();
        const kept = this.#chunks;
        this.#chunks = [];
        for (let i = 0; i < kept.length; i++) {
          this.#reducer.push(kept[i]!);
          kept[i] = EMPTY;
        }
      }
      this.#reducer.push(chunk);
    } catch (error) {
      this.#reduceFailure = (error as Error).message;
    }
  }

  /** The result for everything received (end of input, or the caller gives up waiting). */
  end(): PayloadRead {
    if (this.bytes <= this.#maxBytes) return decode(Buffer.concat(this.#chunks), this.bytes, this.#maxBytes);
    if (this.#reduceFailure !== undefined || !this.#reducer) return { ok: false, problem: 'too-large', bytes: this.bytes, detail: `not a JSON object: ${this.#reduceFailure ?? 'nothing read'}` };
    try {
      const { value, cuts, cutEverywhere } = this.#reducer.result();
      return { ok: true, payload: value as Record<string, unknown>, bytes: this.bytes, oversized: { cuts, cutEverywhere } };
    } catch (error) {
      return { ok: false, problem: 'too-large', bytes: this.bytes, detail: `not a JSON object: ${(error as Error).message}` };
    }
  }
}

/**
 * The end of one event-driven read: returns `finish`, which settles with the first result only,
 * after clearing the time limit and calling `stop`; after `timeoutMs` it settles as `timeout`.
 */
function settleOnce(resolvePromise: (result: PayloadRead) => void, timeoutMs: number, payload: PayloadCollector, stop: () => void): (result: PayloadRead) => void {
  let settled = false;
  const finish = (result: PayloadRead): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    stop();
    resolvePromise(result);
  };
  const timer = setTimeout(() => finish({ ok: false, problem: 'timeout', bytes: payload.bytes }), timeoutMs);
  return finish;
}

/**
 * Reads the hook payload from `stream` within a bounded time: resolves as soon as a complete
 * JSON object or array has arrived (the writer may keep the stream open; bytes after it are not
 * the payload's, however the reads were cut: see {@link PayloadCollector}), at
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
    const payload = new PayloadCollector(maxBytes);
    const finish = settleOnce(resolvePromise, timeoutMs, payload, () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      // Stop reading; the caller exits the process, which closes the pipe.
      stream.pause();
    });
    const onData = (chunk: Buffer | string): void => {
      const read = payload.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      if (read) finish(read);
    };
    const onEnd = (): void => finish(payload.end());
    const onError = (error: Error): void => finish({ ok: false, problem: 'error', bytes: payload.bytes, detail: error.message });
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
 * results, avoiding `process.stdin`: that stream loads Node's stream and socket modules, about
 * 4 ms of every tool call on a pipe and 8 ms on a socket (`npm run bench:hook`).
 *
 * - A regular file or the null device is read synchronously (it cannot block).
 * - A pipe on Linux (what Codex and Hermes give their hooks, and `… | cordon hook`) is reopened
 *   through `/proc/self/fd/<fd>` with `O_NONBLOCK`, a new open file description, so the agent's
 *   end is untouched, and polled every {@link POLL_MS} ms until a complete document has arrived,
 *   end of input, or the time limit.
 *   (A blocking read cannot honour the limit, and a pending `fs.read` on the thread pool would
 *   keep the process from exiting: libuv joins its threads at exit.)
 * - A socket outside Windows (Node-based agents such as Claude Code and Gemini CLI get a
 *   socketpair from libuv) is read through libuv's own pipe handle ({@link readSocketFd}).
 * - A terminal, a Windows pipe, or anything else goes to `fallback()`'s stream through
 *   {@link readPayload}, as does a socket when that handle is not available.
 */
export function readPayloadFd(fd: number, fallback: () => Readable & { isTTY?: boolean }, options: { timeoutMs?: number; maxBytes?: number } = {}): Promise<PayloadRead> {
  const timeoutMs = options.timeoutMs ?? STDIN_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? STDIN_DEFAULTS.maxBytes;
  let kind: 'file' | 'pipe' | 'socket' | 'other' = 'other';
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() || (stat.isCharacterDevice() && isNullDevice(stat.rdev))) kind = 'file';
    else if (stat.isFIFO() && process.platform === 'linux') kind = 'pipe';
    else if (stat.isSocket() && process.platform !== 'win32') kind = 'socket';
  } catch {
    kind = 'other';
  }
  if (kind === 'file') return Promise.resolve(readSyncToEnd(fd, maxBytes));
  if (kind === 'socket') return readSocketFd(fd, timeoutMs, maxBytes) ?? readPayload(fallback(), options);
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
    const payload = new PayloadCollector(maxBytes);
    const buf = Buffer.allocUnsafe(FD_CHUNK);
    const deadline = Date.now() + timeoutMs;
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
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return finish({ ok: false, problem: 'error', bytes: payload.bytes, detail: (error as Error).message });
          if (Date.now() >= deadline) return finish({ ok: false, problem: 'timeout', bytes: payload.bytes });
          setTimeout(poll, POLL_MS);
          return;
        }
        if (n === 0) return finish(payload.end());
        const read = payload.push(payload.keeps(n) ? Buffer.from(buf.subarray(0, n)) : buf.subarray(0, n));
        if (read) return finish(read);
      }
    };
    poll();
  });
}

const ignoreRead = (): void => undefined;

/**
 * Reads a socket descriptor (Node-based agents' stdin) with libuv's pipe handle directly, which is
 * what `process.stdin` would wrap in a `net.Socket` after loading Node's socket and stream modules
 * (8 ms of every tool call, `npm run bench:hook`). Same bounds and results as
 * {@link readPayload}. When done, reading stops and the handle is released without closing the
 * descriptor, so Node restores its blocking mode at exit as it does for `process.stdin`.
 * Returns `undefined`, having read nothing, when the handle cannot be had or opened.
 */
function readSocketFd(fd: number, timeoutMs: number, maxBytes: number): Promise<PayloadRead> | undefined {
  const uv = uvPipeBinding();
  if (!uv) return undefined;
  let handle: UvPipeHandle;
  try {
    handle = new uv.Pipe(uv.socketType);
    if (handle.open(fd) !== 0) {
      handle.close();
      return undefined;
    }
  } catch {
    return undefined;
  }
  return new Promise((resolvePromise) => {
    const payload = new PayloadCollector(maxBytes);
    const finish = settleOnce(resolvePromise, timeoutMs, payload, () => {
      // Node asserts a function here (null aborts the process): later reads, if any, are dropped.
      handle.onread = ignoreRead;
      handle.readStop();
      handle.unref();
    });
    handle.onread = (buffer) => {
      const n = uv.state[uv.bytesIndex]!;
      if (n > 0 && buffer) {
        const read = payload.push(new Uint8Array(buffer, uv.state[uv.offsetIndex]!, n));
        if (read) finish(read);
      } else if (n === UV_EOF) {
        finish(payload.end());
      } else if (n < 0) {
        finish({ ok: false, problem: 'error', bytes: payload.bytes, detail: `socket read failed (libuv status ${n})` });
      }
    };
    const started = handle.readStart();
    if (started !== 0) finish({ ok: false, problem: 'error', bytes: 0, detail: `socket read could not start (libuv status ${started})` });
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

/** Reads a descriptor that cannot block to its end (or its document's end), as {@link PayloadCollector} keeps it. */
function readSyncToEnd(fd: number, maxBytes: number): PayloadRead {
  const payload = new PayloadCollector(maxBytes);
  try {
    const buf = Buffer.allocUnsafe(FD_CHUNK);
    for (;;) {
      const n = readSync(fd, buf, 0, FD_CHUNK, null);
      if (n === 0) break;
      const read = payload.push(payload.keeps(n) ? Buffer.from(buf.subarray(0, n)) : buf.subarray(0, n));
      if (read) return read;
    }
  } catch (error) {
    return { ok: false, problem: 'error', bytes: payload.bytes, detail: (error as Error).message };
  }
  return payload.end();
}

const EMPTY = new Uint8Array(0);

/** Whether `bytes` from `from` on are all JSON white space (space, tab, CR, LF: the new line an agent ends its payload with). */
function blank(bytes: Uint8Array, from: number): boolean {
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d && b !== 0x0a) return false;
  }
  return true;
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
    // The log that takes `detail` leaves out V8's excerpt of the payload (util/json-excerpt.ts).
    return { ok: false, problem: 'not-json', bytes, detail: (error as Error).message };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: 'not-object', bytes };
  return { ok: true, payload: value as Record<string, unknown>, bytes };
}
