// Clocks for the hook and the fast routes that do not touch the global `performance`: in Node 20 its first
// use loads perf_hooks, about 2 ms of every tool call (`npm run bench:hook`).

const wallAtLoad = Date.now();
const hrAtLoad = process.hrtime.bigint();

/** Monotonic milliseconds from an arbitrary origin, sub-millisecond resolution (for durations). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Milliseconds since this process started (`process.uptime()`), sub-millisecond resolution. */
export function sinceStartMs(): number {
  return process.uptime() * 1000;
}

/**
 * Unix epoch milliseconds with sub-millisecond resolution: the wall clock read once when this
 * module loaded, advanced by the monotonic clock (so marker times of one process never go back).
 */
export function epochMs(): number {
  return wallAtLoad + Number(process.hrtime.bigint() - hrAtLoad) / 1e6;
}
