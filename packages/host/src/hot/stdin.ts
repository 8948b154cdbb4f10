import type { Readable } from 'node:stream';

/** Defaults for {@link readPayload}; overridable by `CORDON_HOOK_STDIN_TIMEOUT_MS` / `CORDON_HOOK_MAX_STDIN_BYTES`. */
export const STDIN_DEFAULTS = Object.freeze({
  /** How long to wait for stdin to close, ms. Agents write the payload at once and close it. */
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
 * Reads the hook payload from `stream` within a bounded time: resolves at end of input, after
 * `timeoutMs` (stdin never closed), or on a stream error; bytes past `maxBytes` are drained and
 * discarded. Invalid UTF-8 decodes to U+FFFD; a leading BOM is dropped. Only a JSON object is a
 * payload. Never rejects.
 */
export function readPayload(stream: Readable & { isTTY?: boolean }, options: { timeoutMs?: number; maxBytes?: number } = {}): Promise<PayloadRead> {
  const timeoutMs = options.timeoutMs ?? STDIN_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? STDIN_DEFAULTS.maxBytes;
  if (stream.isTTY) return Promise.resolve({ ok: false, problem: 'tty', bytes: 0 });
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
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
    };
    const onEnd = (): void => finish(decode(Buffer.concat(chunks), bytes, maxBytes));
    const onError = (error: Error): void => finish({ ok: false, problem: 'error', bytes, detail: error.message });
    const timer = setTimeout(() => finish({ ok: false, problem: 'timeout', bytes }), timeoutMs);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

function decode(buffer: Buffer, bytes: number, maxBytes: number): PayloadRead {
  if (bytes > maxBytes) return { ok: false, problem: 'too-large', bytes };
  let text = buffer.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { ok: false, problem: 'empty', bytes };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: 'not-json', bytes, detail: (error as Error).message };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, problem: 'not-object', bytes };
  return { ok: true, payload: value as Record<string, unknown>, bytes };
}
