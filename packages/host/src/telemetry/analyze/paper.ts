import { sessionsWithCalls, type PooledAnalysis } from './batch.js';
import { categoryShare } from './tools.js';
import { plural } from '../../util/plural.js';

/** Outcome of comparing a measured figure with the paper's band. */
export type Verdict = 'matches' | 'lower' | 'higher' | 'no data';

/** The papers the report answers to. */
export const PAPERS = {
  AgentCgroup: 'AgentCgroup: Understanding and Controlling OS Resources of AI Agents (arXiv 2602.09345)',
  AgentSight: 'AgentSight: System-Level Observability for AI Agents Using eBPF (arXiv 2508.02736)',
} as const;

/** One measured-versus-paper row (AgentCgroup §3 and AgentSight §5). */
export interface ComparisonRow {
  readonly id: string;
  /** Which paper the row answers to ({@link PAPERS}). */
  readonly paper: keyof typeof PAPERS;
  readonly quantity: string;
  /**
   * Where the paper states it: AgentCgroup §3.x (the characterization; §6 is the enforcement
   * evaluation), or `AgentSight §5.x` for the AgentSight rows.
   */
  readonly paper_section: string;
  /** The paper's figure as it states it. */
  readonly paper_figure: string;
  /** The band the measured value is checked against, in the measured value's unit. */
  readonly band: readonly [number, number];
  readonly unit: 'fraction' | 'MiB' | 'x' | 'r' | 'MiB/s' | 'ms' | '%';
  readonly measured: number | null;
  /** Samples, sessions or calls behind `measured`, in words ("1234 samples in 5 sessions"). */
  readonly sample_count: string;
  readonly verdict: Verdict;
  /** Which definition the measured number uses. */
  readonly definition: string;
  /** Structural difference between this measurement and the paper's, when there is one. */
  readonly note: string;
}

const RSS = 'process-tree RSS summed per sample (a page shared by several processes counts in each) vs the paper\'s container cgroup memory from podman stats';
const SAMPLING = '250 ms sampling vs the paper\'s 1 s (short spikes the paper averages away are seen here)';
const NO_INIT = 'no container start-up phase here; the paper also excludes its 31–48 % init phase from active time';

/** `lower` / `higher` outside `[lo, hi]`, `matches` inside, `no data` without a value. */
export function verdict(measured: number | null, band: readonly [number, number]): Verdict {
  if (measured === null || !Number.isFinite(measured)) return 'no data';
  if (measured < band[0]) return 'lower';
  if (measured > band[1]) return 'higher';
  return 'matches';
}

/**
 * The comparison table for a pooled batch. Bands are the paper's reported range (its two agents'
 * values: Haiku and GLM); for a single figure Cordon uses ±20 % around it, said in the row.
 */
export function compareWithPaper(p: PooledAnalysis): ComparisonRow[] {
  // `basis`: how many calls (or sessions) the figure rests on; with none there is no figure, only
  // a 0 that would read as a measurement ("0.0 % from 0 calls" is "no data").
  const row = ({ basis, ...r }: Omit<ComparisonRow, 'verdict' | 'paper'> & { paper?: ComparisonRow['paper']; basis?: number }): ComparisonRow => {
    const measured = basis === 0 ? null : r.measured;
    return { paper: 'AgentCgroup', ...r, measured, verdict: verdict(measured, r.band) };
  };
  const as = p.agentsight;
  // The per-session shares divide by sessions with calls: the count says so (and the batch's size when it differs).
  const nWithCalls = sessionsWithCalls(p);
  const withCalls = `${plural(nWithCalls, 'session')} with calls${nWithCalls === p.n_sessions ? '' : ` (of ${p.n_sessions} analyzed)`}`;
  // The tool share is a mean over sessions with an active time (first to last event).
  const nActive = p.execution.n_with_active ?? p.n_sessions;
  const active = nActive === p.n_sessions ? plural(p.n_sessions, 'session') : `${plural(nActive, 'session')} with an active time (of ${p.n_sessions} analyzed)`;
  // The peak/mean and CPU rows rest on the sessions that have such a figure (a session without
  // samples has neither); reports saved before the counts existed name the batch.
  const samplesIn = (n: number | undefined, what: string) =>
    `${plural(p.n_samples, 'sample')} in ${n === undefined || n === p.n_sessions ? plural(p.n_sessions, 'session') : `${plural(n, 'session')} with ${what} (of ${p.n_sessions} analyzed)`}`;
  const testShare = categoryShare(p.tools, 'test');
  const shellCalls = p.tools.tools.reduce((a, t) => a + t.n, 0);
  return [
    row({
      id: 'tool-share', quantity: 'tool execution share of active time', paper_section: '§3.2, Fig. 1b', paper_figure: 'mean 36.4 % (GLM) – 42.5 % (Haiku)', band: [0.364, 0.425], unit: 'fraction',
      measured: p.execution.mean_paper_tool_fraction, basis: p.n_calls, sample_count: `${plural(p.n_calls, 'call')} in ${active}`,
      definition: 'paper: per session Σ call durations / active time (first to last event), mean over sessions; cordon\'s union of windows over the sampled span is in the execution table', note: NO_INIT,
    }),
    row({
      id: 'baseline', quantity: 'framework baseline memory', paper_section: '§3.3, Fig. 4b', paper_figure: '~185 MB (Haiku 183, GLM 188); band ±20 %', band: [148, 222], unit: 'MiB',
      measured: p.memory.median_baseline_mb, sample_count: plural(p.memory.n_with_baseline, 'session'),
      definition: 'median over sessions of the median memory outside every call window', note: `${RSS}; the native tree includes the agent's own runtime (node), larger than the paper's container idle`,
    }),
    row({
      id: 'peak-over-avg', quantity: 'peak / average memory (largest session)', paper_section: '§3.3, Table 1', paper_figure: 'up to 15.4× (pydicom#2022: 4060 / 264 MB)', band: [2, 15.4], unit: 'x',
      measured: p.memory.max_peak_over_avg?.value ?? null, sample_count: samplesIn(p.memory.n_with_peak_over_avg, 'memory samples'), definition: 'per session max / mean of all samples; the largest over sessions', note: RSS,
    }),
    row({
      id: 'shell-share', quantity: 'shell (Bash) share of tool time', paper_section: '§3.2, Fig. 2a', paper_figure: '47.8 % (Haiku) – 98.1 % (GLM)', band: [0.478, 0.981], unit: 'fraction',
      measured: p.tools.shell_share, basis: shellCalls, sample_count: plural(shellCalls, 'call'), definition: 'Σ durations of canonical shell calls / Σ durations of all calls, pooled', note: '',
    }),
    row({
      id: 'test-share', quantity: 'test share of shell time', paper_section: '§3.2, Fig. 2b', paper_figure: '43.7 % (GLM) – 72.9 % (Haiku)', band: [0.437, 0.729], unit: 'fraction',
      measured: testShare, basis: p.tools.categories.reduce((a, c) => a + c.n, 0), sample_count: plural(p.tools.categories.reduce((a, c) => a + c.n, 0), 'shell call'), definition: 'Σ durations of shell calls the rule table puts in "test" / Σ shell durations, pooled', note: 'categories come from cordon\'s rule table (overridable with --rules), not the paper\'s',
    }),
    row({
      id: 'retry-sessions', quantity: 'sessions with retry loops', paper_section: '§3.3', paper_figure: '85 % (Haiku, 28/33) – 97 % (GLM, 108/111) of tasks', band: [0.85, 0.97], unit: 'fraction',
      measured: p.retry.share_sessions_with_groups, sample_count: withCalls, definition: '≥ 3 consecutive identical shell commands (the paper\'s code grouped any ≥ 3 consecutive Bash calls)', note: '',
    }),
    row({
      id: 'retry-time', quantity: 'time inside retry loops', paper_section: '§3.3', paper_figure: '7.4 % (Haiku) – 20.5 % (GLM) of execution time', band: [0.074, 0.205], unit: 'fraction',
      measured: p.retry.mean_share_of_active_time, sample_count: `${plural(p.retry.sessions_with_groups, 'session')} with loops`, definition: 'Σ durations of calls in loops / active time, mean over sessions that have loops (paper code)', note: '',
    }),
    row({
      id: 'retry-unreleased', quantity: 'memory left unreleased by a retry loop (largest)', paper_section: '§3.3', paper_figure: 'up to 502 MB', band: [0, 502], unit: 'MiB',
      measured: p.retry.max_unreleased?.value ?? null, sample_count: plural(p.retry.n_groups, 'loop'), definition: 'first sample after the loop − last sample before it', note: RSS,
    }),
    row({
      id: 'correlation', quantity: 'CPU–memory correlation (mean of per-session r)', paper_section: '§3.3', paper_figure: '−0.84 to +0.50, mean −0.39', band: [-0.84, 0.5], unit: 'r',
      measured: p.correlation.mean, sample_count: `${plural(p.correlation.n, 'session')} with ≥ 10 samples`, definition: 'Pearson r of memory and CPU over each session\'s samples', note: SAMPLING,
    }),
    row({
      id: 'samples-in-calls', quantity: 'sampled time inside tool calls', paper_section: '§3.3, Figs. 5–6', paper_figure: '35.9 % (GLM) – 50.6 % (Haiku)', band: [0.359, 0.506], unit: 'fraction',
      measured: p.bursts.sample_share_in_calls, sample_count: plural(p.bursts.n_samples, 'sample'), definition: 'samples inside any call window / all samples, pooled', note: SAMPLING,
    }),
    row({
      id: 'bursts-in-calls', quantity: `memory bursts (> ${p.bursts.threshold_mb} MiB${p.bursts.above_baseline ? ' above baseline' : ''}) inside tool calls`, paper_section: '§3.3, Figs. 5–6', paper_figure: '67.3 % (GLM) – 98.5 % (Haiku)', band: [0.673, 0.985], unit: 'fraction',
      measured: p.bursts.burst_share_in_calls, sample_count: plural(p.bursts.burst_samples, 'burst sample'), definition: p.bursts.above_baseline ? `burst = memory more than ${p.bursts.threshold_mb} MiB above the session's baseline (the reference's definition; the paper's code uses 300 MB absolute), pooled over samples` : `burst = memory above ${p.bursts.threshold_mb} MiB absolute (paper code), pooled over samples`, note: `${RSS}; ${SAMPLING}`,
    }),
    row({
      id: 'change-rate', quantity: 'largest memory change rate', paper_section: '§3.3, Fig. 7', paper_figure: 'up to ~3 GB/s (2.9 GB within one 1 s interval); band 1000–3000', band: [1000, 3000], unit: 'MiB/s',
      measured: p.bursts.max_change?.value ?? null, sample_count: plural(p.bursts.n_samples, 'sample'), definition: 'max |Δmemory| / Δt between consecutive samples', note: SAMPLING,
    }),
    row({
      id: 'burst-duration', quantity: 'burst duration (median)', paper_section: '§3.3', paper_figure: 'bursts last 1–2 s', band: [1000, 2000], unit: 'ms',
      measured: p.bursts.median_burst_ms, sample_count: plural(p.bursts.n_bursts, 'burst'), definition: 'runs of consecutive burst samples, last − first sample time', note: `${SAMPLING}; a one-sample burst has duration 0`,
    }),
    row({
      id: 'avg-cpu', quantity: 'average CPU', paper_section: '§3.3', paper_figure: '7.6 % (GLM) – 13.2 % (Haiku) of one core', band: [7.6, 13.2], unit: '%',
      measured: p.mean_avg_cpu_pct, sample_count: samplesIn(p.n_with_cpu, 'a CPU figure'), definition: 'mean over sessions of each session\'s mean CPU (100 = one core)', note: 'CPU of the agent\'s process tree only (the paper: the whole container)',
    }),
    // AgentSight (arXiv 2508.02736): the same verdict rule; its §5 numbers.
    row({
      id: 'agentsight-overhead', paper: 'AgentSight', quantity: "cordon's own cost (hook time + sampler CPU) against session wall time", paper_section: 'AgentSight §5.1, Table 1',
      paper_figure: '< 3 % end to end (mean 2.9 %: +3.4 %, +4.9 %, +0.4 % over three Claude Code tasks)', band: [0, 0.03], unit: 'fraction',
      measured: as.own_cost_share, sample_count: `${plural(as.n_with_cost, 'session')}, ${(as.own_cost_ms / 1000).toFixed(1)} s of ${(as.wall_ms / 1000).toFixed(1)} s`,
      definition: "Σ over sessions of (every hook's own wall time, hook_overhead_ms, + the samplers' own CPU) / Σ session wall time (first to last event)",
      note: "AgentSight measured the agent's end-to-end slowdown with and without its eBPF tracer; this is cordon's measured cost, an upper bound on its share of the slowdown (hooks are waited for; the sampler only competes for CPU)",
    }),
    row({
      id: 'agentsight-retry', paper: 'AgentSight', quantity: 'sessions with a failing retry loop (one identical failing shell command, ≥ 3 cycles in a row)', paper_section: 'AgentSight §5.2.2',
      paper_figure: 'an identical failing command retried; alert after 3 full cycles (4,800 tokens spent by then)', band: [Number.MIN_VALUE, 1], unit: 'fraction',
      measured: as.share_sessions_with_failing_loops, sample_count: `${plural(as.failing_loops, 'failing loop')}, longest ${as.longest_failing_loop} cycles, in ${withCalls}`,
      definition: "≥ 3 (the retry-loop minimum) consecutive shell calls with the same command, each failed (exit status failed or a non-zero exit code), over sessions with calls; matches when the case occurs at all (the paper reports one case, not a rate)",
      note: "AgentSight judged loops from the model's traffic and the process trace; cordon from tool-call markers (`cordon control run` also escalates its note from a command's third limit warning)",
    }),
    row({
      id: 'agentsight-blocking', paper: 'AgentSight', quantity: 'time one agent is blocked by another (multi-agent)', paper_section: 'AgentSight §5.2.3',
      paper_figure: '3 agents, 12,847 events: agent B blocked 34 % of its wall time on file-lock contention (23 retry cycles)', band: [0.34, 0.34], unit: 'fraction',
      measured: null, sample_count: `${as.concurrent_sessions} of ${plural(p.n_sessions, 'session')} ran concurrently with another`,
      definition: 'not measured: cordon records neither file locks nor which process waits on which, so blocking cannot be told from running; only whether sessions overlapped in time is counted',
      note: 'AgentSight traces file and lock syscalls with eBPF; cordon samples process-tree memory and CPU',
    }),
  ];
}
