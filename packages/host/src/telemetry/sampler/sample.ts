import type { TreeReading } from '@cordon/plugin-api';

/**
 * One line of `samples.jsonl` (uncoalesced/cordon; field names kept, but `t` is in
 * epoch milliseconds like the markers' `ts`, MARKERS.md, so one unit serves the whole directory).
 */
export interface Sample {
  /** When the tree was read: wall clock, epoch milliseconds (the clock the markers use). */
  readonly t: number;
  /** Sum of RSS over the tree, MiB (2^20 bytes), 3 decimals. */
  readonly mem_mb: number;
  /** Sum of per-process CPU since the previous sample, % of one core (100 = one core), 2 decimals. */
  readonly cpu_pct: number;
  /** Processes read. */
  readonly n_procs: number;
  /** True when a process of the tree vanished mid-read (exited since the previous sample before its last CPU was read). */
  readonly partial: boolean;
  /**
   * Present when some counted processes were attributed by process group because their parent
   * was gone when first seen (orphaned background jobs): how many. Absent otherwise.
   */
  readonly adopted?: number;
}

const MIB = 1024 * 1024;

/** The sample for `reading` taken at `nowMs` (epoch ms). */
export function toSample(nowMs: number, reading: TreeReading): Sample {
  return {
    t: Math.round(nowMs),
    mem_mb: Math.round((reading.rssBytes / MIB) * 1000) / 1000,
    cpu_pct: Math.round(reading.cpuPct * 100) / 100,
    n_procs: reading.nProcs,
    partial: reading.partial,
    ...(reading.adopted ? { adopted: reading.adopted } : {}),
  };
}

/** {@link toSample} as one JSON line with its newline (same text as `JSON.stringify`, built directly). */
export function formatSample(nowMs: number, reading: TreeReading): string {
  const s = toSample(nowMs, reading);
  const adopted = s.adopted ? `,"adopted":${s.adopted}` : '';
  return `{"t":${s.t},"mem_mb":${s.mem_mb},"cpu_pct":${s.cpu_pct},"n_procs":${s.n_procs},"partial":${s.partial}${adopted}}\n`;
}
