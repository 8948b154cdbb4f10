import { insideWindows, mergedWindows, median, type SessionData } from './types.js';

/**
 * Burst profile of one session (uncoalesced/cordon's, with the definitions of the AgentCgroup analysis code):
 * a sample is a memory burst when its memory exceeds `threshold_mb` **absolute** (paper: 300 MB);
 * "in a call" when its time lies in any call window. Counts are kept so the batch pools them over
 * all samples, as the paper's percentages are.
 */
export interface BurstProfile extends BurstCounts {
  /** Largest |Δmem| / Δt between consecutive samples, MiB/s (Δt > 0 only). */
  readonly max_change_mb_s: number | null;
  /** Time of the sample ending that largest change, epoch ms. */
  readonly max_change_at: number | null;
  /** Durations of runs of consecutive burst samples (last − first sample time), ms. */
  readonly burst_durations_ms: number[];
  readonly median_burst_ms: number | null;
}

/** Sample counts of a burst profile: additive over sessions (the batch pools them). */
export interface BurstCounts {
  readonly threshold_mb: number;
  readonly n_samples: number;
  /** Samples inside any call window. */
  readonly samples_in_calls: number;
  readonly burst_samples: number;
  readonly burst_samples_in_calls: number;
  /** `samples_in_calls / n_samples`. */
  readonly sample_share_in_calls: number | null;
  /** `burst_samples_in_calls / burst_samples`. */
  readonly burst_share_in_calls: number | null;
}

/** Computes the burst profile of one session. */
export function burstProfile(d: SessionData, thresholdMb: number): BurstProfile {
  const n = d.t.length;
  const inside = insideWindows(d.t, mergedWindows(d.calls));
  let inCalls = 0;
  let bursts = 0;
  let burstsIn = 0;
  let maxRate = -1;
  let maxAt: number | null = null;
  const durations: number[] = [];
  let runStart = -1;
  for (let i = 0; i < n; i++) {
    const isIn = inside[i] === 1;
    const isBurst = d.mem[i]! > thresholdMb;
    if (isIn) inCalls++;
    if (isBurst) {
      bursts++;
      if (isIn) burstsIn++;
      if (runStart < 0) runStart = i;
    } else if (runStart >= 0) {
      durations.push(d.t[i - 1]! - d.t[runStart]!);
      runStart = -1;
    }
    if (i > 0) {
      const dt = d.t[i]! - d.t[i - 1]!;
      if (dt > 0) {
        const rate = (Math.abs(d.mem[i]! - d.mem[i - 1]!) * 1000) / dt;
        if (rate > maxRate) {
          maxRate = rate;
          maxAt = d.t[i]!;
        }
      }
    }
  }
  if (runStart >= 0) durations.push(d.t[n - 1]! - d.t[runStart]!);
  return {
    threshold_mb: thresholdMb,
    n_samples: n,
    samples_in_calls: inCalls,
    burst_samples: bursts,
    burst_samples_in_calls: burstsIn,
    sample_share_in_calls: n ? inCalls / n : null,
    burst_share_in_calls: bursts ? burstsIn / bursts : null,
    max_change_mb_s: maxRate >= 0 ? maxRate : null,
    max_change_at: maxAt,
    burst_durations_ms: durations,
    median_burst_ms: median(durations),
  };
}
