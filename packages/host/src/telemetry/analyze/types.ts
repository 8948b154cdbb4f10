import type { SessionRow, ToolCallRow } from '../reduce/db/schema.js';

/**
 * One reduced session as the analysis passes read it: the stored summary row, its tool calls in
 * start order, and its samples as parallel typed arrays sorted by time (epoch ms, MiB, % of one
 * core). Typed arrays keep a session of a million samples at 24 MB and let the batch stream one
 * session at a time.
 */
export interface SessionData {
  readonly session: SessionRow;
  /** Paired calls, sorted by `start_ts`. */
  readonly calls: readonly ToolCallRow[];
  /** Sample times, epoch ms, ascending. */
  readonly t: Float64Array;
  /** Sample memory, MiB (RSS summed over the agent's process tree). */
  readonly mem: Float64Array;
  /** Sample CPU, % of one core. */
  readonly cpu: Float64Array;
}

/** Options shared by the passes. */
export interface AnalyzeOptions {
  /** A sample is a memory burst when its memory exceeds this many MiB (paper code: 300 MB absolute). */
  readonly burstThresholdMb: number;
  /**
   * Measure bursts above each session's baseline (`baseline_mb + burstThresholdMb`) instead of
   * above the absolute threshold: the reference's definition (uncoalesced/cordon), for trees whose
   * idle RSS already exceeds the paper's container idle.
   */
  readonly burstAboveBaseline: boolean;
  /** Shortest run of identical consecutive shell commands that counts as a retry loop (paper: 3). */
  readonly minRetryRun: number;
  /** Fewest samples a session needs for a CPU–memory correlation (paper code: 10). */
  readonly minCorrelationSamples: number;
}

/** Defaults of {@link AnalyzeOptions}, each the paper's analysis-code value (the AgentCgroup analysis code, eunomia-bpf/agentcgroup). */
export const DEFAULT_ANALYZE_OPTIONS: AnalyzeOptions = Object.freeze({ burstThresholdMb: 300, burstAboveBaseline: false, minRetryRun: 3, minCorrelationSamples: 10 });

/** `a / b`, or `null` when `b` is 0 or either side is missing. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || b === 0) return null;
  return a / b;
}

/** Median of `values` (mean of the middle two for an even count); `null` when empty. Sorts a copy. */
export function median(values: ArrayLike<number>): number | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
}

/** Mean of `values`; `null` when empty. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * The calls' windows merged into disjoint `[start, end]` intervals sorted by start (epoch ms).
 * Overlapping (parallel) calls collapse, so "inside a call" is counted once.
 */
export function mergedWindows(calls: readonly ToolCallRow[]): Array<[number, number]> {
  const sorted = calls.map((c) => [c.start_ts, c.end_ts] as [number, number]).filter(([a, b]) => b >= a).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const w of sorted) {
    const last = out[out.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else out.push([w[0], w[1]]);
  }
  return out;
}

/**
 * For each sample time in ascending `t`, whether it lies inside any of `windows` (both ends
 * inclusive, like reduce's window join). One linear sweep.
 */
export function insideWindows(t: Float64Array, windows: ReadonlyArray<readonly [number, number]>): Uint8Array {
  const inside = new Uint8Array(t.length);
  let w = 0;
  for (let i = 0; i < t.length; i++) {
    const ti = t[i]!;
    while (w < windows.length && windows[w]![1] < ti) w++;
    if (w < windows.length && windows[w]![0] <= ti) inside[i] = 1;
  }
  return inside;
}
