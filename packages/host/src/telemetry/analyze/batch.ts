import type { BurstCounts } from './bursts.js';
import type { CompiledRule } from './rules.js';
import { analyzeSession, timeline, type SessionAnalysis, type Timeline } from './session.js';
import { ToolBreakdown, type ToolTables } from './tools.js';
import { mean, median, type AnalyzeOptions, type SessionData } from './types.js';

/** A session reference with the value it holds the record for. */
export interface SessionRef {
  readonly session_id: string;
  readonly value: number;
  readonly command?: string;
  readonly seq?: number;
}

/** Figures pooled over the batch (uncoalesced/cordon, the AgentCgroup analysis code). */
export interface PooledAnalysis {
  readonly n_sessions: number;
  /**
   * Sessions with at least one completed call: the denominator of the per-session shares
   * (`retry.share_sessions_with_groups`, `agentsight.share_sessions_with_failing_loops`), which a
   * session without calls could not count in. Absent from reports written before it was added.
   */
  readonly n_sessions_with_calls?: number;
  readonly n_samples: number;
  readonly n_calls: number;
  readonly execution: {
    /** Mean of per-session union/span fractions (sessions with a span). */
    readonly mean_tool_fraction: number | null;
    /** Mean of per-session Σ durations / active time (the paper's Fig. 1b definition). */
    readonly mean_paper_tool_fraction: number | null;
    /** Σ union / Σ span over the batch. */
    readonly pooled_tool_fraction: number | null;
    readonly n_with_span: number;
    /** Sessions with an active time (first to last event): those `mean_paper_tool_fraction` averages over. Absent from earlier reports. */
    readonly n_with_active?: number;
  };
  readonly memory: {
    /** Median over sessions of the per-session baselines. */
    readonly median_baseline_mb: number | null;
    readonly n_with_baseline: number;
    readonly max_peak: SessionRef | null;
    readonly mean_peak_over_avg: number | null;
    readonly max_peak_over_avg: SessionRef | null;
    /** Sessions with a peak / mean of their memory samples: those `mean_peak_over_avg` and `max_peak_over_avg` rest on. Absent from earlier reports. */
    readonly n_with_peak_over_avg?: number;
    /** The call with the largest window peak over the batch. */
    readonly largest_call: SessionRef | null;
    readonly largest_spike: SessionRef | null;
  };
  readonly tools: ToolTables;
  readonly retry: {
    readonly sessions_with_groups: number;
    /** `sessions_with_groups` / `n_sessions_with_calls` (sessions with at least one call), not / `n_sessions`. */
    readonly share_sessions_with_groups: number | null;
    readonly n_groups: number;
    readonly longest: number;
    /** Mean retry share of active time over sessions that have groups (paper code). */
    readonly mean_share_of_active_time: number | null;
    readonly mean_share_of_tool_time: number | null;
    readonly max_unreleased: SessionRef | null;
  };
  readonly correlation: { readonly n: number; readonly min: number | null; readonly max: number | null; readonly mean: number | null };
  readonly bursts: BurstCounts & {
    /** Bursts were measured above each session's baseline (else above the absolute threshold). */
    readonly above_baseline: boolean;
    readonly max_change: SessionRef | null;
    readonly n_bursts: number;
    readonly median_burst_ms: number | null;
  };
  /** Mean of per-session mean CPU, % of one core. */
  readonly mean_avg_cpu_pct: number | null;
  /** Sessions with a mean CPU (a CPU figure in their samples): those `mean_avg_cpu_pct` averages over. Absent from earlier reports. */
  readonly n_with_cpu?: number;
  /** The AgentSight rows' figures (arXiv 2508.02736 §5.1, §5.2.2, §5.2.3). */
  readonly agentsight: {
    /** Σ (hook time + sampler CPU) / Σ wall time over sessions that recorded a cost. */
    readonly own_cost_share: number | null;
    readonly own_cost_ms: number;
    readonly wall_ms: number;
    readonly n_with_cost: number;
    /** Sessions with at least one failing loop / `n_sessions_with_calls` (sessions with calls), not / `n_sessions`. */
    readonly share_sessions_with_failing_loops: number | null;
    readonly failing_loops: number;
    readonly longest_failing_loop: number;
    /** Σ of the sessions' `loops_broken` (sessions reduced before the count was stored add nothing). */
    readonly loops_broken: number;
    /** Sessions in which the loop breaker broke at least one loop. */
    readonly sessions_with_loops_broken: number;
    /** Sessions whose wall time overlaps another session's in the batch (concurrent agents). */
    readonly concurrent_sessions: number;
  };
}

/**
 * Sessions with calls: the denominator of the per-session shares. A report written before
 * `n_sessions_with_calls` was stored (an earlier run's JSON given to `--compare`) counts every session.
 */
export function sessionsWithCalls(p: PooledAnalysis): number {
  return p.n_sessions_with_calls ?? p.n_sessions;
}

/** Chart data kept for the first sessions of a batch (HTML report). */
export interface SessionChart {
  readonly session_id: string;
  readonly timeline: Timeline;
  readonly calls: ReadonlyArray<{ readonly seq: number; readonly start_ts: number; readonly end_ts: number; readonly tool_name: string; readonly command: string; readonly peak_mb: number | null }>;
}

/** A histogram bin of per-call peaks, MiB. */
export interface HistogramBin {
  readonly from_mb: number;
  readonly to_mb: number;
  readonly count: number;
}

/** Everything a batch produces. */
export interface BatchAnalysis {
  readonly sessions: SessionAnalysis[];
  readonly pooled: PooledAnalysis;
  readonly charts: { readonly sessions: SessionChart[]; readonly call_peak_histogram: HistogramBin[] };
}

/** Options of {@link BatchAccumulator}. */
export interface BatchOptions extends AnalyzeOptions {
  /** Sessions whose timeline is kept for charts (the first ones added). */
  readonly chartSessions: number;
  /** Buckets per kept timeline. */
  readonly chartPoints: number;
}

/**
 * Streams sessions through the passes one at a time, keeping only per-session results, summed
 * tool tables, the per-call peaks and the timelines of the first `chartSessions` sessions, so the
 * batch's memory does not grow with its samples.
 */
export class BatchAccumulator {
  readonly #sessions: SessionAnalysis[] = [];
  readonly #tools: ToolBreakdown;
  readonly #peaks: number[] = [];
  readonly #charts: SessionChart[] = [];
  readonly #durations: number[] = [];

  constructor(
    private readonly rules: readonly CompiledRule[],
    private readonly options: BatchOptions,
  ) {
    this.#tools = new ToolBreakdown(rules);
  }

  /** Analyses one session and adds it to the batch; returns its analysis. */
  add(d: SessionData): SessionAnalysis {
    const { analysis, breakdown } = analyzeSession(d, this.rules, this.options);
    this.#sessions.push(analysis);
    this.#tools.merge(breakdown);
    for (const c of d.calls) if (c.peak_memory_mb !== null) this.#peaks.push(c.peak_memory_mb);
    for (const v of analysis.bursts.burst_durations_ms) this.#durations.push(v);
    if (this.#charts.length < this.options.chartSessions) {
      this.#charts.push({
        session_id: analysis.session_id,
        timeline: timeline(d, this.options.chartPoints),
        calls: d.calls.map((c) => ({ seq: c.seq, start_ts: c.start_ts, end_ts: c.end_ts, tool_name: c.tool_name, command: c.command, peak_mb: c.peak_memory_mb })),
      });
    }
    return analysis;
  }

  /** The batch result. */
  result(): BatchAnalysis {
    return { sessions: this.#sessions, pooled: pool(this.#sessions, this.#tools.result(), this.#durations, this.options), charts: { sessions: this.#charts, call_peak_histogram: histogram(this.#peaks, 30) } };
  }
}

function maxRef(sessions: readonly SessionAnalysis[], pick: (s: SessionAnalysis) => { value: number; command?: string; seq?: number } | null): SessionRef | null {
  let best: SessionRef | null = null;
  for (const s of sessions) {
    const v = pick(s);
    if (v && (!best || v.value > best.value)) best = { session_id: s.session_id, ...v };
  }
  return best;
}

function pool(sessions: readonly SessionAnalysis[], tools: ToolTables, durations: number[], options: AnalyzeOptions): PooledAnalysis {
  const nums = (f: (s: SessionAnalysis) => number | null) => sessions.map(f).filter((v): v is number => v !== null && Number.isFinite(v));
  const fractions = nums((s) => s.execution.tool_fraction);
  const paperFractions = nums((s) => s.execution.paper_tool_fraction);
  const peakOverAvg = nums((s) => s.memory.peak_over_avg);
  const cpu = nums((s) => s.avg_cpu_pct);
  const span = sessions.reduce((a, s) => a + s.execution.span_ms, 0);
  const union = sessions.reduce((a, s) => a + s.execution.tool_union_ms, 0);
  const baselines = nums((s) => s.memory.baseline_mb);
  const withGroups = sessions.filter((s) => s.retry.groups.length > 0);
  const withCalls = sessions.filter((s) => s.n_calls > 0);
  const rs = nums((s) => s.correlation.r);
  const b = sessions.reduce(
    (a, s) => ({ n: a.n + s.bursts.n_samples, inCalls: a.inCalls + s.bursts.samples_in_calls, bursts: a.bursts + s.bursts.burst_samples, burstsIn: a.burstsIn + s.bursts.burst_samples_in_calls }),
    { n: 0, inCalls: 0, bursts: 0, burstsIn: 0 },
  );
  const callRef = (c: { value: number; command: string; seq: number } | null) => (c ? { value: c.value, command: c.command, seq: c.seq } : null);
  return {
    n_sessions: sessions.length,
    n_sessions_with_calls: withCalls.length,
    n_samples: sessions.reduce((a, s) => a + s.n_samples, 0),
    n_calls: sessions.reduce((a, s) => a + s.n_calls, 0),
    execution: {
      mean_tool_fraction: mean(fractions),
      mean_paper_tool_fraction: mean(paperFractions),
      pooled_tool_fraction: span > 0 ? union / span : null,
      n_with_span: fractions.length,
      n_with_active: paperFractions.length,
    },
    memory: {
      median_baseline_mb: median(baselines),
      n_with_baseline: baselines.length,
      max_peak: maxRef(sessions, (s) => (s.memory.peak_mb === null ? null : { value: s.memory.peak_mb, ...(s.memory.largest_call ? { command: s.memory.largest_call.command, seq: s.memory.largest_call.seq } : {}) })),
      mean_peak_over_avg: mean(peakOverAvg),
      max_peak_over_avg: maxRef(sessions, (s) => (s.memory.peak_over_avg === null ? null : { value: s.memory.peak_over_avg })),
      n_with_peak_over_avg: peakOverAvg.length,
      largest_call: maxRef(sessions, (s) => callRef(s.memory.largest_call)),
      largest_spike: maxRef(sessions, (s) => callRef(s.memory.largest_spike)),
    },
    tools,
    retry: {
      sessions_with_groups: withGroups.length,
      share_sessions_with_groups: withCalls.length ? withGroups.length / withCalls.length : null,
      n_groups: sessions.reduce((a, s) => a + s.retry.groups.length, 0),
      longest: sessions.reduce((a, s) => Math.max(a, s.retry.longest), 0),
      mean_share_of_active_time: mean(withGroups.map((s) => s.retry.share_of_active_time).filter((v): v is number => v !== null)),
      mean_share_of_tool_time: mean(withGroups.map((s) => s.retry.share_of_tool_time).filter((v): v is number => v !== null)),
      max_unreleased: maxRef(sessions, (s) => (s.retry.max_unreleased_mb === null ? null : { value: s.retry.max_unreleased_mb })),
    },
    correlation: { n: rs.length, min: rs.length ? Math.min(...rs) : null, max: rs.length ? Math.max(...rs) : null, mean: mean(rs) },
    bursts: {
      threshold_mb: options.burstThresholdMb,
      above_baseline: options.burstAboveBaseline,
      n_samples: b.n,
      samples_in_calls: b.inCalls,
      burst_samples: b.bursts,
      burst_samples_in_calls: b.burstsIn,
      sample_share_in_calls: b.n ? b.inCalls / b.n : null,
      burst_share_in_calls: b.bursts ? b.burstsIn / b.bursts : null,
      max_change: maxRef(sessions, (s) => (s.bursts.max_change_mb_s === null ? null : { value: s.bursts.max_change_mb_s })),
      n_bursts: durations.length,
      median_burst_ms: median(durations),
    },
    mean_avg_cpu_pct: mean(cpu),
    n_with_cpu: cpu.length,
    agentsight: agentsightFigures(sessions),
  };
}

function agentsightFigures(sessions: readonly SessionAnalysis[]): PooledAnalysis['agentsight'] {
  const costed = sessions.filter((s) => s.own_cost.share !== null);
  const own = costed.reduce((a, s) => a + (s.own_cost.hook_ms ?? 0) + (s.own_cost.sampler_cpu_ms ?? 0), 0);
  const wall = costed.reduce((a, s) => a + s.own_cost.wall_ms, 0);
  const withCalls = sessions.filter((s) => s.n_calls > 0);
  const failing = sessions.filter((s) => s.failing_loops.n > 0);
  // Sessions running at the same time as another one of the batch (sorted sweep over [first, first + wall]).
  const spans = sessions.filter((s) => s.first_ts !== null).map((s) => [s.first_ts!, s.first_ts! + s.own_cost.wall_ms] as const).sort((a, b) => a[0] - b[0]);
  const overlapping = new Set<number>();
  let reach = -Infinity;
  let reacher = -1;
  spans.forEach(([a, b], i) => {
    if (a < reach) {
      overlapping.add(i);
      overlapping.add(reacher);
    }
    if (b > reach) {
      reach = b;
      reacher = i;
    }
  });
  return {
    own_cost_share: wall > 0 ? own / wall : null,
    own_cost_ms: own,
    wall_ms: wall,
    n_with_cost: costed.length,
    share_sessions_with_failing_loops: withCalls.length ? failing.length / withCalls.length : null,
    failing_loops: sessions.reduce((a, s) => a + s.failing_loops.n, 0),
    longest_failing_loop: sessions.reduce((a, s) => Math.max(a, s.failing_loops.longest), 0),
    loops_broken: sessions.reduce((a, s) => a + (s.loops_broken ?? 0), 0),
    sessions_with_loops_broken: sessions.filter((s) => (s.loops_broken ?? 0) > 0).length,
    concurrent_sessions: overlapping.size,
  };
}

/** `bins` equal-width bins over [min, max] of `values` (one bin when all are equal). */
export function histogram(values: readonly number[], bins: number): HistogramBin[] {
  if (values.length === 0) return [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi === lo) return [{ from_mb: lo, to_mb: hi, count: values.length }];
  const width = (hi - lo) / bins;
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - lo) / width))]!++;
  return counts.map((count, i) => ({ from_mb: lo + i * width, to_mb: lo + (i + 1) * width, count }));
}
