import { forEachLine } from '../../io/read-lines.js';
import { isMissingFile } from '../../io/safe-read.js';
import { isEpochMs, unreadableSessionFile } from '../markers.js';
import { MAX_CPU_PCT, MAX_MEM_MB, plausible } from '../../top/samples-tail.js';
import type { Sample } from '../sampler/sample.js';

/** What {@link readSamples} found. */
export interface SampleLog {
  /** Valid samples sorted by `t` (epoch ms). */
  readonly samples: Sample[];
  /** 1-based numbers of lines that were not valid samples. */
  readonly badLines: number[];
}

/**
 * Reads `samples.jsonl` tolerantly, line by line and never whole in memory
 * (uncoalesced/cordon: unparseable lines are skipped and counted, never fatal). A
 * line needs a `t` that is a time (epoch ms from 0 to `MAX_EPOCH_MS`) and a `mem_mb` a sampler
 * could have written (`plausible`: 0 to 16 EiB); a `cpu_pct` or `n_procs` that is not one, or
 * absent, reads as 0, `partial` as false;
 * a blank line counts as unreadable, except the empty end after a trailing newline, and so does a
 * line longer than `MAX_LINE_CHARS` (io/read-lines.ts), never held in memory. A missing
 * file reads as empty. The result is sorted by `t`, since a superseded sampler's last lines may
 * interleave with its successor's.
 */
export function readSamples(path: string): SampleLog {
  const samples: Sample[] = [];
  const badLines: number[] = [];
  try {
    forEachLine(path, (line, lineNo) => {
      try {
        const s = JSON.parse(line) as Partial<Sample>;
        // Bounded as `cordon top` bounds them (`plausible`): ±1e308 made means and spans Infinity.
        const mem = s && typeof s === 'object' ? plausible(s.mem_mb, MAX_MEM_MB) : null;
        if (mem !== null && isEpochMs(s.t)) {
          samples.push({ t: s.t, mem_mb: mem, cpu_pct: plausible(s.cpu_pct, MAX_CPU_PCT) ?? 0, n_procs: plausible(s.n_procs, Number.MAX_SAFE_INTEGER, true) ?? 0, partial: s.partial === true });
        } else badLines.push(lineNo);
      } catch {
        badLines.push(lineNo);
      }
    }, { onLongLine: (lineNo) => badLines.push(lineNo) });
  } catch (error) {
    if (isMissingFile(error)) return { samples: [], badLines: [] };
    throw unreadableSessionFile(path, error);
  }
  samples.sort((a, b) => a.t - b.t);
  return { samples, badLines };
}

/** Index of the first sample with `t >= at` (binary search over samples sorted by `t`). */
export function lowerBound(samples: readonly Sample[], at: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (samples[mid]!.t < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index just past the last sample with `t <= at`. */
export function upperBound(samples: readonly Sample[], at: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (samples[mid]!.t <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Memory and CPU over a window of samples; `undefined` values when it holds none. */
export interface WindowStats {
  readonly n: number;
  /** Max of `mem_mb`. */
  readonly peakMb?: number;
  /** Mean of `mem_mb`. */
  readonly avgMb?: number;
  /** Mean of `cpu_pct`. */
  readonly avgCpuPct?: number;
}

/**
 * Stats of the samples with `start <= t <= end` (both ends inclusive, uncoalesced/cordon), times in
 * epoch ms. A window with no sample (a call shorter than a tick) has `n = 0` and no values, not
 * zeros (a gap in uncoalesced/cordon: a 0 peak would drag means down).
 */
export function windowStats(samples: readonly Sample[], start: number, end: number): WindowStats {
  const from = lowerBound(samples, start);
  const to = upperBound(samples, end);
  if (to <= from) return { n: 0 };
  let peak = -Infinity;
  let mem = 0;
  let cpu = 0;
  for (let i = from; i < to; i++) {
    const s = samples[i]!;
    if (s.mem_mb > peak) peak = s.mem_mb;
    mem += s.mem_mb;
    cpu += s.cpu_pct;
  }
  const n = to - from;
  return { n, peakMb: peak, avgMb: mem / n, avgCpuPct: cpu / n };
}
