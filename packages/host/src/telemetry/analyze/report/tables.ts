import { cutText } from '@cordon/plugin-api';
import type { AnalysisReport } from '../index.js';
import { sessionsWithCalls, type PooledAnalysis } from '../batch.js';
import type { ComparisonRow } from '../paper.js';
import type { GroupRow } from '../tools.js';
import { plural } from '../../../util/plural.js';

/** A titled table of display strings, rendered by the text, Markdown and HTML reports alike. */
export interface Table {
  readonly title: string;
  readonly headers: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
  /** Printed under the title. */
  readonly caption?: string;
}

/** `0.3851` → `38.5 %`; `-` for null. */
export const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : `${(v * 100).toFixed(1)} %`);
/** Fixed decimals; `-` for null. */
export const num = (v: number | null | undefined, digits = 1): string => (v === null || v === undefined ? '-' : v.toFixed(digits));
/** ms → seconds with 2 decimals. */
export const sec = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '-' : (ms / 1000).toFixed(2));
/** A command on one line, cut to `max` characters. */
export const cmd = (c: string | null | undefined, max = 60): string => (c ? cutText(c.replace(/\s+/g, ' ').trim(), max) : '-');

/** A measured value in its row's unit. */
export function measuredText(r: Pick<ComparisonRow, 'measured' | 'unit'>): string {
  const v = r.measured;
  if (v === null) return '-';
  switch (r.unit) {
    case 'fraction':
      return pct(v);
    case 'x':
      return `${v.toFixed(2)}×`;
    case 'r':
      return v.toFixed(2);
    case 'ms':
      return `${v.toFixed(0)} ms`;
    case '%':
      return `${v.toFixed(1)} %`;
    default:
      return `${v.toFixed(1)} ${r.unit}`;
  }
}

/** The comparison table. */
export function comparisonTable(report: AnalysisReport): Table {
  return {
    title: 'Measured versus the AgentCgroup paper (§3, characterization) and the AgentSight paper (§5, evaluation)',
    caption: 'verdict: matches inside the paper\'s band, lower / higher outside it, no data when not measurable',
    headers: ['quantity', 'paper', 'paper figure', 'measured', 'from', 'verdict', 'definition', 'structural difference'],
    rows: report.comparison.map((r) => [r.quantity, r.paper_section, r.paper_figure, measuredText(r), r.sample_count, r.verdict, r.definition, r.note || '-']),
  };
}

function groupRows(rows: readonly GroupRow[]): string[][] {
  return rows.map((r) => [r.name, String(r.n), sec(r.total_ms), pct(r.share), sec(r.mean_ms), num(r.mean_peak_mb), num(r.max_peak_mb), cmd(r.max_peak_command, 50)]);
}

/** Every table of a report, in print order. */
export function reportTables(report: AnalysisReport): Table[] {
  const p = report.pooled;
  const s = report.sessions;
  const retries = s.flatMap((x) => x.retry.groups.map((g) => [x.session_id, cmd(g.command, 50), String(g.count), sec(g.time_ms), num(g.unreleased_mb)]));
  return [
    comparisonTable(report),
    {
      title: 'Pass 1: execution split',
      caption: `pooled: union / span ${pct(p.execution.pooled_tool_fraction)}, mean over ${plural(p.execution.n_with_span, 'session')} with a sampled span ${pct(p.execution.mean_tool_fraction)}; paper definition (Σ durations / active time) mean over ${plural(p.execution.n_with_active ?? p.n_sessions, 'session')} with an active time ${pct(p.execution.mean_paper_tool_fraction)}`,
      headers: ['session', 'agent', 'calls', 'samples', 'span s', 'tool (union) s', 'tool / span', 'Σ durations s', 'active s', 'Σ / active'],
      rows: s.map((x) => [x.live ? `${x.session_id} (live: still sampled, partial)` : x.session_id, x.agent ?? '-', String(x.n_calls), String(x.n_samples), sec(x.execution.span_ms), sec(x.execution.tool_union_ms), pct(x.execution.tool_fraction), sec(x.execution.tool_sum_ms), sec(x.execution.active_ms), pct(x.execution.paper_tool_fraction)]),
    },
    {
      title: 'Pass 2: memory profile (MiB)',
      // No sampled call: said so, not as `largest call - MiB: - (-)`.
      caption: `baseline = median outside calls (median over sessions ${num(p.memory.median_baseline_mb)}); ${p.memory.largest_call ? `largest call ${num(p.memory.largest_call.value)} MiB: ${cmd(p.memory.largest_call.command)} (${p.memory.largest_call.session_id})` : 'no call has samples'}`,
      headers: ['session', 'baseline', 'p10', 'peak', 'mean', 'peak / mean', 'largest call peak', 'its command', 'largest spike', 'largest call peak / mean'],
      rows: s.map((x) => [x.session_id, num(x.memory.baseline_mb), num(x.memory.baseline_p10_mb), num(x.memory.peak_mb), num(x.memory.avg_mb), num(x.memory.peak_over_avg, 2), num(x.memory.largest_call?.value), cmd(x.memory.largest_call?.command, 50), num(x.memory.largest_spike?.value), num(x.memory.largest_call_peak_over_avg?.value, 2)]),
    },
    {
      title: 'Pass 3: tools (pooled)',
      caption: `shell share of tool time ${pct(p.tools.shell_share)}`,
      headers: ['tool', 'calls', 'total s', 'share', 'mean s', 'mean peak', 'max peak', 'max-peak command'],
      rows: groupRows(p.tools.tools),
    },
    { title: 'Pass 3: shell commands by category (pooled)', headers: ['category', 'calls', 'total s', 'share of shell', 'mean s', 'mean peak', 'max peak', 'max-peak command'], rows: groupRows(p.tools.categories) },
    {
      title: 'Pass 4: retry loops',
      caption: `${ofSessionsWithCalls(p.retry.sessions_with_groups, p.retry.share_sessions_with_groups, p, 'loops')}; mean share of active time ${pct(p.retry.mean_share_of_active_time)}; longest ${p.retry.longest}`,
      headers: ['session', 'command', 'runs', 'time s', 'unreleased MiB'],
      rows: retries,
    },
    {
      title: 'Failing loops (AgentSight §5.2.2) and the loops the hook broke',
      caption: `${plural(p.agentsight.failing_loops, 'failing loop')} (one failing command ≥ ${report.options.minRetryRun} times in a row); the loop breaker broke ${plural(p.agentsight.loops_broken, 'loop')} in ${plural(p.agentsight.sessions_with_loops_broken, 'session')}`,
      headers: ['session', 'failing loops', 'longest', 'time s', 'loops broken'],
      rows: s.map((x) => [x.session_id, String(x.failing_loops.n), String(x.failing_loops.longest), sec(x.failing_loops.time_ms), x.loops_broken === null ? '-' : String(x.loops_broken)]),
    },
    {
      title: 'Pass 5: CPU–memory correlation and burst profile',
      caption: `r over ${plural(p.correlation.n, 'session')}: min ${num(p.correlation.min, 2)}, mean ${num(p.correlation.mean, 2)}, max ${num(p.correlation.max, 2)}; bursts (> ${p.bursts.threshold_mb} MiB) inside calls ${pct(p.bursts.burst_share_in_calls)} of ${p.bursts.burst_samples}; samples inside calls ${pct(p.bursts.sample_share_in_calls)}`,
      headers: ['session', 'r', 'samples in calls', 'burst samples', 'bursts in calls', 'max change MiB/s', 'median burst ms', 'mean CPU %'],
      rows: s.map((x) => [x.session_id, num(x.correlation.r, 2), pct(x.bursts.sample_share_in_calls), String(x.bursts.burst_samples), pct(x.bursts.burst_share_in_calls), num(x.bursts.max_change_mb_s), num(x.bursts.median_burst_ms, 0), num(x.avg_cpu_pct)]),
    },
    ...(report.failed.length ? [{ title: 'Skipped sessions', headers: ['session', 'stage', 'error'], rows: report.failed.map((f) => [f.session, f.stage, cutText(f.error, 200)]) }] : []),
  ];
}

/**
 * "1 of 1 session with calls has loops (100.0 %; 4 sessions analyzed)": `n` sessions over the
 * denominator the share used, so the words and the percentage agree; the batch's size is added
 * when sessions without calls make it differ.
 */
export function ofSessionsWithCalls(n: number, share: number | null, p: PooledAnalysis, what: string): string {
  const d = sessionsWithCalls(p);
  const all = d === p.n_sessions ? '' : `; ${plural(p.n_sessions, 'session')} analyzed`;
  return `${n} of ${plural(d, 'session')} with calls ${n === 1 || d === 1 ? 'has' : 'have'} ${what} (${pct(share)}${all})`;
}

/** The definitions as table rows. */
export function definitionsTable(report: AnalysisReport): Table {
  return { title: 'Definitions', headers: ['figure', 'definition'], rows: Object.entries(report.definitions) };
}
