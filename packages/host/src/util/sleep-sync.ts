/** One shared cell to wait on: nobody notifies it, so every wait runs to its timeout. */
let cell: Int32Array | undefined;

/**
 * Blocks the calling thread for `ms` milliseconds (fractions allowed; nothing for `ms` ≤ 0): a
 * futex wait through `Atomics.wait`, which Node allows on the main thread. Nothing else in the
 * thread runs meanwhile (timers, I/O callbacks, signal handlers wait for the event loop's next
 * turn), which is the point for a retry pause in synchronous code and for the sampler between its
 * ticks (telemetry/sampler/loop.ts).
 */
export function sleepSync(ms: number): void {
  if (!(ms > 0)) return;
  cell ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(cell, 0, 0, ms);
}
