/**
 * How much a call was held back by its `memory.high`, from the samples the enforce tap takes.
 *
 * With PSI, the measure is the cgroup's memory `full` stall total (`memory.pressure`, kernel
 * psi.rst). Without PSI (`psi=0` on the kernel command line, `CONFIG_PSI_DEFAULT_DISABLED`, or a
 * cgroup whose `cgroup.pressure` is 0) the file cannot be read, and the meter falls back to
 * `memory.events` `high` (cgroup-v2.rst "Memory Interface Files": the number of times the
 * cgroup's processes were throttled and routed to direct reclaim because memory.high was
 * exceeded) together with `memory.current`: a sample counts as throttled when the cgroup is over
 * its memory.high by more than {@link OVER_HIGH_MARGIN} and the `high` counter grew within the
 * last {@link HIGH_EVENT_RECENCY_MS}. The kernel sleeps a throttled task at most 2 s per episode
 * (mm/memcontrol.c, MEMCG_MAX_HIGH_DELAY_JIFFIES), so a call held over its limit keeps moving
 * the counter at least that often; a call whose memory the kernel can reclaim below the limit
 * (page cache) does not stay over it.
 */

/** One sample of a call's cgroup. */
export interface ThrottleSample {
  /** ms on a monotonic clock. */
  readonly atMs: number;
  /** `memory.pressure` `full` total in µs, `null` when it cannot be read (no PSI). */
  readonly fullUs: number | null;
  /** `memory.events` `high` (0 when unreadable). */
  readonly highEvents: number;
  /** `memory.current` in bytes, `null` when unreadable. */
  readonly currentBytes: number | null;
  /** The `memory.high` in force, bytes; `null` = `max`. */
  readonly highBytes: number | null;
}

/** Share over memory.high that counts as "held over it" (the kernel adds no delay within about 1.25 %: penalties of HZ/100 or less are skipped). */
export const OVER_HIGH_MARGIN = 1.02;
/** How recent the last growth of `memory.events` `high` must be: the kernel's 2 s cap per throttle episode plus reclaim time. */
export const HIGH_EVENT_RECENCY_MS = 3000;

/** Where the throttling figures come from. */
export type ThrottleSource = 'memory.pressure' | 'memory.events';

/**
 * Whether a sustained stall happened: the cumulative stall (µs) grew by at least `fraction` of
 * the elapsed time over samples spanning at least `windowMs`. `samples` are `[ms, stallUs]`
 * pairs, oldest first.
 */
export function sustainedStall(samples: ReadonlyArray<readonly [number, number]>, windowMs: number, fraction: number): boolean {
  const last = samples[samples.length - 1];
  if (!last) return false;
  // The newest sample at least a window old; older ones are not needed.
  let first: readonly [number, number] | undefined;
  for (const s of samples) if (last[0] - s[0] >= windowMs) first = s;
  if (!first) return false;
  const elapsedUs = (last[0] - first[0]) * 1000;
  return last[1] - first[1] >= fraction * elapsedUs;
}

/**
 * Accumulates {@link ThrottleSample}s of one call. Uses PSI while `memory.pressure` reads and
 * switches to the `memory.events` estimate for the rest of the call at the first sample where
 * it does not. Pure: no file access, so every branch is testable.
 */
export class ThrottleMeter {
  /** The measure in use. */
  source: ThrottleSource = 'memory.pressure';
  /** Time the cgroup was held over memory.high by the `memory.events` estimate, ms (computed with or without PSI). */
  throttledMs = 0;
  private history: Array<readonly [number, number]> = [];
  private lastHigh = 0;
  private lastHighAt: number | undefined;
  private previousAt: number | undefined;

  constructor(private readonly keep: number = 200) {}

  /** Adds one sample (ignore samples taken while the cgroup was frozen: a freeze is not throttling). */
  add(sample: ThrottleSample): void {
    if (sample.highEvents > this.lastHigh) this.lastHighAt = sample.atMs;
    this.lastHigh = Math.max(this.lastHigh, sample.highEvents);
    const over = sample.highBytes !== null && sample.currentBytes !== null && sample.currentBytes > sample.highBytes * OVER_HIGH_MARGIN;
    const held = over && this.lastHighAt !== undefined && sample.atMs - this.lastHighAt <= HIGH_EVENT_RECENCY_MS;
    if (held && this.previousAt !== undefined) this.throttledMs += sample.atMs - this.previousAt;
    this.previousAt = sample.atMs;
    if (this.source === 'memory.pressure' && sample.fullUs === null) {
      this.source = 'memory.events';
      this.history = [];
    }
    const value = this.source === 'memory.pressure' ? sample.fullUs! : this.throttledMs * 1000;
    this.history.push([sample.atMs, value]);
    if (this.history.length > this.keep) this.history.shift();
  }

  /** Skips the time since the last sample (a frozen stretch) without counting it. */
  skip(atMs: number): void {
    this.previousAt = atMs;
  }

  /** True when the stall (PSI `full`, or the estimate) covered at least `fraction` of the last `windowMs`. */
  sustained(windowMs: number, fraction: number): boolean {
    return sustainedStall(this.history, windowMs, fraction);
  }

  /** Starts the window again (after memory.high was raised). */
  restart(): void {
    this.history = this.history.slice(-1);
  }
}
