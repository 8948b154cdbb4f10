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

/**
 * `new Date(ms).toISOString()` (`2026-12-02T08:03:04.299Z`, always UTC, milliseconds) computed
 * from the epoch milliseconds alone: V8 sets up its time-zone cache (ICU reads /etc/localtime and
 * follows its links) the first time a Date is formatted, about 1–1.5 ms of every process that logs
 * one line or stamps one record (`control run`, `check`). Days to a civil date by the
 * proleptic Gregorian algorithm of Howard Hinnant's "chrono-Compatible Low-Level Date
 * Algorithms" (`civil_from_days`). Years 0–9999 only, as `toISOString` prints them without a
 * sign; any other instant, or a non-integer, is handed to `toISOString` itself (which throws a
 * RangeError for an invalid time value).
 */
export function isoTimestamp(ms: number = Date.now()): string {
  // 0000-01-01 and 9999-12-31T23:59:59.999 in epoch ms.
  if (!Number.isInteger(ms) || ms < -62167219200000 || ms > 253402300799999) return new Date(ms).toISOString();
  const day = Math.floor(ms / 86400000);
  const inDay = ms - day * 86400000;
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
  const h = Math.floor(inDay / 3600000);
  const min = Math.floor((inDay % 3600000) / 60000);
  const s = Math.floor((inDay % 60000) / 1000);
  const milli = inDay % 1000;
  return `${String(y).padStart(4, '0')}-${two(m)}-${two(d)}T${two(h)}:${two(min)}:${two(s)}.${String(milli).padStart(3, '0')}Z`;
}
