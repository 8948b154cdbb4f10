import type { SessionData } from './types.js';

/** Pass 5 result: Pearson's r between a session's memory and CPU samples. */
export interface Correlation {
  readonly n_samples: number;
  /** `null` with fewer than `minSamples` samples or when either series is constant. */
  readonly r: number | null;
}

/**
 * Pass 5: Pearson correlation of memory (MiB) and CPU (% of one core) over one session's samples,
 * computed with centred sums in two passes (no cancellation on long, flat series). Sessions with
 * fewer than `minSamples` samples get none (paper code: 10; the AgentCgroup analysis code, eunomia-bpf/agentcgroup).
 */
export function cpuMemoryCorrelation(d: SessionData, minSamples: number): Correlation {
  const n = d.mem.length;
  if (n < Math.max(2, minSamples)) return { n_samples: n, r: null };
  let sm = 0;
  let sc = 0;
  for (let i = 0; i < n; i++) {
    sm += d.mem[i]!;
    sc += d.cpu[i]!;
  }
  const mm = sm / n;
  const mc = sc / n;
  let cov = 0;
  let vm = 0;
  let vc = 0;
  for (let i = 0; i < n; i++) {
    const a = d.mem[i]! - mm;
    const b = d.cpu[i]! - mc;
    cov += a * b;
    vm += a * a;
    vc += b * b;
  }
  if (vm === 0 || vc === 0) return { n_samples: n, r: null };
  return { n_samples: n, r: Math.max(-1, Math.min(1, cov / Math.sqrt(vm * vc))) };
}
