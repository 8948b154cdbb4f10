// Waiting in tests: for a condition, never for a time that happens to be enough (docs/testing.md).
// A loaded machine stretches every duration; a poll with a generous deadline only gets slower.

/** Resolves after `ms` milliseconds. For load, for a duration being measured, or for a window in which something must NOT happen: never as a wait for a condition (use {@link waitFor}). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** What is awaited, for the error message ("the sampler's stop event"); a function is called at the deadline (to show the state then). */
  readonly what: string | (() => string);
  /** Give up after this many ms (default 30,000: generous on a loaded 2-core machine). */
  readonly timeoutMs?: number;
  /** Pause between polls, ms (default 25). */
  readonly intervalMs?: number;
}

/**
 * Polls `condition` until it returns a value other than `undefined`, `null` or `false` (it may be
 * async), and resolves with that value. After `timeoutMs` it throws an Error naming `what` and,
 * when the condition threw on its last poll, that error. The condition is tried once more at the
 * deadline, so a slow poll never makes it miss a condition that holds.
 */
export async function waitFor<T>(condition: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: WaitOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const end = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const last = Date.now() >= end;
    try {
      const value = await condition();
      if (value !== undefined && value !== null && value !== false) return value as T;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (last) {
      const cause = lastError === undefined ? '' : ` (last poll threw: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof options.what === 'function' ? options.what() : options.what}${cause}`);
    }
    await sleep(options.intervalMs ?? 25);
  }
}
