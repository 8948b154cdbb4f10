import { failingLoops, ownCost, type FailingLoops, type OwnCost } from './agentsight.js';
import { burstProfile, type BurstProfile } from './bursts.js';
import { cpuMemoryCorrelation, type Correlation } from './correlation.js';
import { executionSplit, type ExecutionSplit } from './execution.js';
import { memoryProfile, type MemoryProfile } from './memory.js';
import { retryLoops, type RetryLoops } from './retry.js';
import type { CompiledRule } from './rules.js';
import { ToolBreakdown, type ToolTables } from './tools.js';
import type { AnalyzeOptions, SessionData } from './types.js';

/** A session's timeline for charts: at most `points` buckets, each keeping its max memory and CPU. */
export interface Timeline {
  /** Bucket start times, epoch ms. */
  readonly t: number[];
  readonly mem_mb: number[];
  readonly cpu_pct: number[];
}

/** Every pass over one session. */
export interface SessionAnalysis {
  readonly session_id: string;
  readonly agent: string | null;
  readonly first_ts: number | null;
  readonly n_calls: number;
  readonly n_samples: number;
  /** Mean CPU over the session's samples, % of one core. */
  readonly avg_cpu_pct: number | null;
  readonly execution: ExecutionSplit;
  readonly memory: MemoryProfile;
  readonly tools: ToolTables;
  readonly retry: RetryLoops;
  readonly correlation: Correlation;
  readonly bursts: BurstProfile;
  /** Cordon's own cost against the session's wall time (AgentSight §5.1). */
  readonly own_cost: OwnCost;
  /** Runs of one identical failing shell command (AgentSight §5.2.2). */
  readonly failing_loops: FailingLoops;
  /**
   * Loops the hook's loop breaker broke: runs of one failing shell command on which it told the
   * agent that repeating it will probably not help (docs/hooks.md "The loop breaker"); `null` for
   * a session reduced before cordon stored the count.
   */
  readonly loops_broken: number | null;
  /**
   * A sampler was still writing the session when it was reduced: its numbers are partial (they
   * grow until the session ends and is reduced again). False for sessions reduced before cordon
   * stored it; absent in reports saved before cordon wrote it (`--compare` reads those).
   */
  readonly live?: boolean;
}

/** What {@link analyzeSession} returns besides the analysis: the pieces the batch pools. */
export interface SessionPieces {
  readonly analysis: SessionAnalysis;
  readonly breakdown: ToolBreakdown;
}

/** Runs the five passes and the burst profile over one session. Pure. */
export function analyzeSession(d: SessionData, rules: readonly CompiledRule[], options: AnalyzeOptions): SessionPieces {
  const execution = executionSplit(d);
  const breakdown = new ToolBreakdown(rules);
  for (const c of d.calls) breakdown.add(c);
  let cpu = 0;
  for (let i = 0; i < d.cpu.length; i++) cpu += d.cpu[i]!;
  const memory = memoryProfile(d);
  const threshold = options.burstAboveBaseline ? (memory.baseline_mb ?? memory.baseline_p10_mb ?? 0) + options.burstThresholdMb : options.burstThresholdMb;
  return {
    breakdown,
    analysis: {
      session_id: d.session.session_id,
      agent: d.session.agent,
      first_ts: d.session.first_ts,
      n_calls: d.calls.length,
      n_samples: d.t.length,
      avg_cpu_pct: d.cpu.length ? cpu / d.cpu.length : null,
      execution,
      memory,
      tools: breakdown.result(),
      retry: retryLoops(d, options.minRetryRun, execution.active_ms, execution.tool_sum_ms),
      correlation: cpuMemoryCorrelation(d, options.minCorrelationSamples),
      bursts: burstProfile(d, threshold),
      own_cost: ownCost(d),
      failing_loops: failingLoops(d, options.minRetryRun),
      loops_broken: d.session.loops_broken ?? null,
      live: d.session.live === 1,
    },
  };
}

/**
 * Downsamples a session's samples to at most `points` equal-time buckets, keeping each bucket's
 * maximum memory and CPU so spikes survive (a mean would flatten a one-sample burst).
 */
export function timeline(d: SessionData, points: number): Timeline {
  const n = d.t.length;
  if (n <= points) return { t: Array.from(d.t), mem_mb: Array.from(d.mem), cpu_pct: Array.from(d.cpu) };
  const t0 = d.t[0]!;
  const width = (d.t[n - 1]! - t0) / points || 1;
  const out: Timeline = { t: [], mem_mb: [], cpu_pct: [] };
  let bucket = -1;
  for (let i = 0; i < n; i++) {
    const b = Math.min(points - 1, Math.floor((d.t[i]! - t0) / width));
    if (b !== bucket) {
      bucket = b;
      out.t.push(d.t[i]!);
      out.mem_mb.push(d.mem[i]!);
      out.cpu_pct.push(d.cpu[i]!);
    } else {
      const k = out.t.length - 1;
      if (d.mem[i]! > out.mem_mb[k]!) out.mem_mb[k] = d.mem[i]!;
      if (d.cpu[i]! > out.cpu_pct[k]!) out.cpu_pct[k] = d.cpu[i]!;
    }
  }
  return out;
}
