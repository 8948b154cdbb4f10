import type { AnalysisReport } from '../index.js';
import type { SessionChart } from '../batch.js';
import { terminalCut, terminalText } from '../../../output/terminal.js';

/**
 * What an agent wrote (tool names, commands, session ids) as a chart shows it: one line, controls
 * and bidirectional characters as `\uXXXX` ({@link terminalText}), as the report's tables show
 * them. The chart renderer (Vega) escapes only XML markup, so an ESC, BEL, C1 control or U+202E
 * would reach the SVG raw, where `cat report.html` or a browser acts on it.
 */
const shown = terminalText;

/** A Vega-Lite spec (kept loose: the specs below are literal objects checked by vega-lite at compile time). */
export type VlSpec = Record<string, unknown>;

/** A chart of the HTML report: an id (for tests and anchors), a title and its Vega-Lite spec. */
export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly spec: VlSpec;
}

const WIDTH = 760;
/** How many of a session's calls get a label (the ones with the largest peaks). */
const LABELLED_CALLS = 3;
/** Each timeline axis ends at this many times its largest value: the band above holds the labels. */
const HEADROOM = 1.08 + LABELLED_CALLS * 0.1 + 0.04;

/** Memory and CPU timeline of one session, call windows shaded, the biggest calls labelled. */
export function sessionTimeline(c: SessionChart): ChartSpec {
  const t0 = c.timeline.t[0] ?? c.calls[0]?.start_ts ?? 0;
  const points = c.timeline.t.map((t, i) => ({ s: (t - t0) / 1000, mem: c.timeline.mem_mb[i]!, cpu: c.timeline.cpu_pct[i]! }));
  const windows = c.calls.map((k) => ({ from: (k.start_ts - t0) / 1000, to: (k.end_ts - t0) / 1000, tool: shown(k.tool_name), command: terminalCut(k.command, 80) }));
  const maxMem = Math.max(1, ...c.timeline.mem_mb);
  const maxCpu = Math.max(1, ...c.timeline.cpu_pct);
  // Labels sit in a band above every line (both scales end at HEADROOM × their maximum, so the
  // lines stay in the lower 70 %), one row per rank: they can cross neither line nor each other.
  // A thin rule joins each label to its peak.
  const labels = [...c.calls]
    .filter((k) => k.peak_mb !== null)
    .sort((a, b) => b.peak_mb! - a.peak_mb!)
    .slice(0, LABELLED_CALLS)
    .map((k, rank) => ({ s: (k.start_ts - t0) / 1000, mem: k.peak_mb!, label_mem: maxMem * (1.08 + rank * 0.1), label: `#${k.seq} ${shown(k.tool_name)} ${terminalCut(k.command.replace(/\s+/g, ' '), 40)} (${k.peak_mb!.toFixed(0)} MiB)` }));
  const x = { field: 's', type: 'quantitative', title: 'seconds since the first sample' };
  const memY = { type: 'quantitative', title: 'memory MiB (RSS of the tree)', axis: { titleColor: '#3b6fb6' }, scale: { domain: [0, maxMem * HEADROOM], nice: false } };
  return {
    id: `timeline-${c.session_id}`,
    title: `Session ${c.session_id}: memory and CPU, tool calls shaded`,
    spec: {
      width: WIDTH,
      height: 220,
      layer: [
        {
          // Windows, memory, and the labelled peaks share the memory scale.
          layer: [
            { data: { values: windows }, mark: { type: 'rect', opacity: 0.18, color: '#e8a33d' }, encoding: { x: { field: 'from', type: 'quantitative', title: x.title }, x2: { field: 'to' }, tooltip: [{ field: 'tool' }, { field: 'command' }] } },
            { data: { values: points }, mark: { type: 'line', color: '#3b6fb6', interpolate: 'step-after' }, encoding: { x, y: { field: 'mem', ...memY } } },
            { data: { values: labels }, mark: { type: 'point', filled: true, color: '#222' }, encoding: { x: { field: 's', type: 'quantitative' }, y: { field: 'mem', ...memY } } },
            { data: { values: labels }, mark: { type: 'rule', color: '#999', strokeDash: [2, 2] }, encoding: { x: { field: 's', type: 'quantitative' }, y: { field: 'mem', ...memY }, y2: { field: 'label_mem' } } },
            { data: { values: labels }, mark: { type: 'text', align: 'left', baseline: 'middle', dx: 4, fontSize: 10 }, encoding: { x: { field: 's', type: 'quantitative' }, y: { field: 'label_mem', ...memY }, text: { field: 'label' } } },
          ],
        },
        { data: { values: points }, mark: { type: 'line', color: '#c0392b', strokeDash: [4, 3], interpolate: 'step-after' }, encoding: { x, y: { field: 'cpu', type: 'quantitative', title: 'CPU % of one core', axis: { titleColor: '#c0392b' }, scale: { domain: [0, maxCpu * HEADROOM], nice: false } } } },
      ],
      resolve: { scale: { y: 'independent' } },
    },
  };
}

/** Per tool: share of tool time and peak memory, side by side. */
export function toolBars(report: AnalysisReport): ChartSpec {
  const rows = report.pooled.tools.tools.map((r) => ({ tool: shown(r.name), share: (r.share ?? 0) * 100, peak: r.max_peak_mb ?? 0, mean_peak: r.mean_peak_mb ?? 0 }));
  const y = { field: 'tool', type: 'nominal', sort: '-x', title: null };
  return {
    id: 'tools',
    title: 'Per tool: share of tool time and peak memory (pooled)',
    spec: {
      data: { values: rows },
      hconcat: [
        { width: 340, height: { step: 18 }, mark: { type: 'bar', color: '#3b6fb6' }, encoding: { y, x: { field: 'share', type: 'quantitative', title: 'share of tool time %' }, tooltip: [{ field: 'tool' }, { field: 'share', format: '.1f' }] } },
        { width: 340, height: { step: 18 }, mark: { type: 'bar', color: '#8e44ad' }, encoding: { y: { ...y, sort: null }, x: { field: 'peak', type: 'quantitative', title: 'max call peak MiB' }, tooltip: [{ field: 'tool' }, { field: 'peak', format: '.0f' }, { field: 'mean_peak', format: '.0f' }] } },
      ],
    },
  };
}

/** Histogram of per-call memory peaks (bins computed by the analysis). */
export function peakHistogram(report: AnalysisReport): ChartSpec {
  return {
    id: 'call-peaks',
    title: 'Per-call memory peaks',
    spec: {
      width: WIDTH,
      height: 180,
      data: { values: report.charts.call_peak_histogram },
      mark: { type: 'bar', color: '#16a085', binSpacing: 1 },
      encoding: {
        x: { field: 'from_mb', type: 'quantitative', bin: { binned: true }, title: 'call peak MiB' },
        x2: { field: 'to_mb' },
        // Counts of calls: whole-number ticks only.
        y: { field: 'count', type: 'quantitative', title: 'calls', axis: { tickMinStep: 1, format: 'd' } },
      },
    },
  };
}

/** Retry loops on a timeline: one row per session, a bar per loop from its first start to its last end. */
export function retryTimeline(report: AnalysisReport): ChartSpec {
  const loops = report.sessions.flatMap((s) => {
    const t0 = s.first_ts ?? 0;
    return s.retry.groups.map((g) => ({ session: shown(s.session_id), from: (g.start_ts - t0) / 1000, to: (g.end_ts - t0) / 1000, label: `${terminalCut(g.command.replace(/\s+/g, ' '), 40)} ×${g.count}` }));
  });
  const spec: VlSpec = loops.length
    ? {
        width: WIDTH,
        height: { step: 22 },
        data: { values: loops },
        layer: [
          { mark: { type: 'bar', color: '#d35400', height: 14 }, encoding: { y: { field: 'session', type: 'nominal', title: null }, x: { field: 'from', type: 'quantitative', title: 'seconds since the session start' }, x2: { field: 'to' }, tooltip: [{ field: 'label' }] } },
          { mark: { type: 'text', align: 'left', dx: 4, fontSize: 10 }, encoding: { y: { field: 'session', type: 'nominal' }, x: { field: 'to', type: 'quantitative' }, text: { field: 'label' } } },
        ],
      }
    : { width: WIDTH, height: 40, data: { values: [{ label: 'no retry loops in this batch' }] }, mark: { type: 'text', fontSize: 13 }, encoding: { text: { field: 'label' } } };
  return { id: 'retry-loops', title: 'Retry loops (≥ 3 identical consecutive shell commands)', spec };
}

/** Every chart of the report, in page order. */
export function reportCharts(report: AnalysisReport): ChartSpec[] {
  return [...report.charts.sessions.map(sessionTimeline), toolBars(report), peakHistogram(report), retryTimeline(report)];
}
