import { insideWindows, median, mergedWindows, ratio, type SessionData } from './types.js';

/** The call behind a memory figure. */
export interface CallRef {
  readonly seq: number;
  readonly tool_name: string;
  readonly command: string;
  readonly value: number;
}

/**
 * Pass 2, memory profile of one session (MiB). Definitions:
 * - `baseline_mb`: the paper's framework baseline (§3.3, Fig. 4b: the agent's memory when no tool
 *   runs, ~185 MB): the **median of the samples outside every call window**; `null` when every
 *   sample is inside a call. The reference's p10 of all samples (uncoalesced/cordon) is kept as
 *   `baseline_p10_mb` for comparison.
 * - peak / average: max / mean of all samples (paper code, the AgentCgroup analysis code, eunomia-bpf/agentcgroup).
 * - per call: peak / average of the call's own window, over calls whose average is > 0, and the
 *   paper's per-call spike: the call's peak minus the last sample before the call started.
 */
export interface MemoryProfile {
  readonly n_samples: number;
  readonly baseline_mb: number | null;
  /** Samples the baseline was taken from (those outside every call). */
  readonly baseline_samples: number;
  readonly baseline_p10_mb: number | null;
  readonly peak_mb: number | null;
  readonly avg_mb: number | null;
  /** `peak_mb / avg_mb`. */
  readonly peak_over_avg: number | null;
  /** `peak_mb / baseline_mb`. */
  readonly peak_over_baseline: number | null;
  /** Call with the largest window peak. */
  readonly largest_call: CallRef | null;
  /** Call with the largest window peak / window average. */
  readonly largest_call_peak_over_avg: CallRef | null;
  /** Call with the largest spike (window peak − last sample before the call). */
  readonly largest_spike: CallRef | null;
  /** Per call (by `seq`): the spike in MiB, `null` without a sample before the call or in it. */
  readonly spikes: ReadonlyArray<{ readonly seq: number; readonly spike_mb: number | null }>;
}

/** Runs pass 2 over one session. */
export function memoryProfile(d: SessionData): MemoryProfile {
  const n = d.mem.length;
  let peak = -Infinity;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const m = d.mem[i]!;
    if (m > peak) peak = m;
    sum += m;
  }
  const inside = insideWindows(d.t, mergedWindows(d.calls));
  const idle: number[] = [];
  for (let i = 0; i < n; i++) if (!inside[i]) idle.push(d.mem[i]!);
  const sorted = Float64Array.from(d.mem).sort();
  const baseline = median(idle);
  const avg = n ? sum / n : null;
  let largest: CallRef | null = null;
  let largestRatio: CallRef | null = null;
  let largestSpike: CallRef | null = null;
  const spikes: Array<{ seq: number; spike_mb: number | null }> = [];
  for (const c of d.calls) {
    const p = c.peak_memory_mb;
    if (p !== null && (!largest || p > largest.value)) largest = ref(c, p);
    if (p !== null && c.avg_memory_mb !== null && c.avg_memory_mb > 0) {
      const r = p / c.avg_memory_mb;
      if (!largestRatio || r > largestRatio.value) largestRatio = ref(c, r);
    }
    const before = lastBefore(d.t, c.start_ts);
    const spike = p !== null && before >= 0 ? p - d.mem[before]! : null;
    spikes.push({ seq: c.seq, spike_mb: spike });
    if (spike !== null && (!largestSpike || spike > largestSpike.value)) largestSpike = ref(c, spike);
  }
  return {
    n_samples: n,
    baseline_mb: baseline,
    baseline_samples: idle.length,
    baseline_p10_mb: n ? sorted[Math.floor(0.1 * n)]! : null,
    peak_mb: n ? peak : null,
    avg_mb: avg,
    peak_over_avg: n ? ratio(peak, avg) : null,
    peak_over_baseline: n ? ratio(peak, baseline) : null,
    largest_call: largest,
    largest_call_peak_over_avg: largestRatio,
    largest_spike: largestSpike,
    spikes,
  };
}

function ref(c: { seq: number; tool_name: string; command: string }, value: number): CallRef {
  return { seq: c.seq, tool_name: c.tool_name, command: c.command, value };
}

/** Index of the last sample with `t < at`, or −1. */
export function lastBefore(t: Float64Array, at: number): number {
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
