import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, categorize, compileRules, compareWithPaper, DEFAULT_CATEGORY_RULES, insideWindows, verdict, type AnalysisReport, type SessionAnalysis } from '../../../src/telemetry/analyze/index.js';
import { progressBar } from '../../../src/telemetry/analyze/report/progress.js';
import { reportTables } from '../../../src/telemetry/analyze/report/tables.js';
import { T, T2, writeSyntheticBatch } from './synthetic.js';
import { marker, samples } from '../reduce/helpers.js';

// The synthetic batch (synthetic.ts) written by the real hook and sampler writers, reduced for
// real into SQLite, then analysed: every figure below is derived by hand from the construction.

let data: string;
let report: AnalysisReport;
let a: SessionAnalysis;
let b: SessionAnalysis;
beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), 'cordon-analyze-'));
  writeSyntheticBatch(data);
  report = await analyze({ dataDir: data, all: true });
  a = report.sessions.find((s) => s.session_id === 'syn-a')!;
  b = report.sessions.find((s) => s.session_id === 'syn-b')!;
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

// Samples of syn-a inside a call window (both ends inclusive): pytest 4–12 (9), npm test 16–18,
// 20–22, 24–26 (9), git status 32–33 (2): 20 of 41. The Read call (3.6–3.7 s) holds none.
const A_INSIDE = 20;
// Pearson r of syn-a: mean memory 250 (10250 / 41), so cov = Σ(m − 250)·c = (−50·6 + 550·3)·50
// − 50·27·10 = 54000; Σ(m − 250)² = 3·550² + 33·50² = 990000; Σ(c − c̄)² = 9·50² + 32·10² − 770²/41.
const A_R = 54000 / Math.sqrt(990000 * (25700 - (770 * 770) / 41));

describe('the synthetic batch: every pass equals the constructed figures', () => {
  it('reduces the unreduced sessions first and analyses both, oldest first', () => {
    expect(report.reduced.sort()).toEqual(['syn-a', 'syn-b']);
    expect(report.failed).toEqual([]);
    expect(report.sessions.map((s) => [s.session_id, s.agent, s.n_calls, s.n_samples])).toEqual([
      ['syn-a', 'claude-code', 6, 41],
      ['syn-b', 'codex', 1, 21],
    ]);
    expect(report.schema_version).toBe(1);
  });

  it('pass 1: execution split, union over the sampled span and the paper\'s sum over active time', () => {
    // Windows 2000 + 100 + 3·500 + 250 = 3850 ms, no overlap; span 10 s; active T−1 s … T+11 s.
    expect(a.execution).toEqual({ span_ms: 10000, tool_union_ms: 3850, tool_fraction: 0.385, outside_ms: 6150, tool_sum_ms: 3850, active_ms: 12000, paper_tool_fraction: 3850 / 12000 });
    expect(b.execution).toEqual({ span_ms: 5000, tool_union_ms: 1000, tool_fraction: 0.2, outside_ms: 4000, tool_sum_ms: 1000, active_ms: 5000, paper_tool_fraction: 0.2 });
    expect(report.pooled.execution).toEqual({ mean_tool_fraction: (0.385 + 0.2) / 2, mean_paper_tool_fraction: (3850 / 12000 + 0.2) / 2, pooled_tool_fraction: 4850 / 15000, n_with_span: 2, n_with_active: 2 });
  });

  it('pass 2: memory profile: baseline outside calls, peak, peak/average per session and per call, the command behind the largest', () => {
    // Outside samples: 17 at 200 and 4 at 250 (27–30): median 200. Mean (41·200 + 3·600 + 5·50) / 41 = 250.
    expect(a.memory).toMatchObject({ n_samples: 41, baseline_mb: 200, baseline_samples: 41 - A_INSIDE, baseline_p10_mb: 200, peak_mb: 800, avg_mb: 250, peak_over_avg: 3.2, peak_over_baseline: 4 });
    // pytest window: 200, 200, 800 ×3, 200 ×4: peak 800, mean 400 → 2×; spike 800 − 200 (sample at 0.75 s).
    expect(a.memory.largest_call).toEqual({ seq: 1, tool_name: 'Bash', command: 'pytest -q', value: 800 });
    expect(a.memory.largest_call_peak_over_avg).toEqual({ seq: 1, tool_name: 'Bash', command: 'pytest -q', value: 2 });
    expect(a.memory.largest_spike).toEqual({ seq: 1, tool_name: 'Bash', command: 'pytest -q', value: 600 });
    expect(a.memory.spikes).toEqual([
      { seq: 1, spike_mb: 600 },
      { seq: 2, spike_mb: null },
      { seq: 3, spike_mb: 0 },
      { seq: 4, spike_mb: 0 },
      { seq: 5, spike_mb: 50 },
      { seq: 6, spike_mb: 0 },
    ]);
    expect(b.memory).toMatchObject({ baseline_mb: 150, peak_mb: 150, avg_mb: 150, peak_over_avg: 1, largest_spike: { command: 'ls -la', value: 0 } });
    expect(report.pooled.memory).toMatchObject({
      median_baseline_mb: 175,
      n_with_baseline: 2,
      max_peak: { session_id: 'syn-a', value: 800, command: 'pytest -q', seq: 1 },
      mean_peak_over_avg: 2.1,
      max_peak_over_avg: { session_id: 'syn-a', value: 3.2 },
      largest_call: { session_id: 'syn-a', value: 800, command: 'pytest -q', seq: 1 },
      largest_spike: { session_id: 'syn-a', value: 600, command: 'pytest -q', seq: 1 },
    });
  });

  it('pass 3: per-tool breakdown and shell commands by category', () => {
    const tools = report.pooled.tools;
    expect(tools.total_ms).toBe(4850);
    expect(tools.shell_ms).toBe(4750);
    expect(tools.shell_share).toBe(4750 / 4850);
    expect(tools.tools.map((r) => [r.name, r.n, r.total_ms, r.share, r.max_peak_mb, r.max_peak_command])).toEqual([
      ['Bash', 6, 4750, 4750 / 4850, 800, 'pytest -q'],
      ['Read', 1, 100, 100 / 4850, null, null],
    ]);
    // Mean peak of Bash: (800 + 200 + 200 + 250 + 200 + 150) / 6.
    expect(tools.tools[0]!.mean_peak_mb).toBe(1800 / 6);
    expect(tools.categories.map((r) => [r.name, r.n, r.total_ms, r.share])).toEqual([
      ['test', 4, 3500, 3500 / 4750],
      ['filesystem', 1, 1000, 1000 / 4750],
      ['vcs', 1, 250, 250 / 4750],
    ]);
    expect(a.tools.categories.map((r) => r.name)).toEqual(['test', 'vcs']);
  });

  it("pass 4's caption agrees in number: 1 of 2 sessions has loops, 1 of 1 session has, 2 of 3 have", () => {
    const caption = (withLoops: number, sessions: number) => {
      const pooled = { ...report.pooled, n_sessions: sessions, n_sessions_with_calls: sessions, retry: { ...report.pooled.retry, sessions_with_groups: withLoops } };
      return reportTables({ ...report, pooled }).find((t) => t.title === 'Pass 4: retry loops')!.caption!.split(' (')[0];
    };
    expect(caption(report.pooled.retry.sessions_with_groups, report.pooled.n_sessions)).toBe('1 of 2 sessions with calls has loops');
    expect(caption(1, 1)).toBe('1 of 1 session with calls has loops');
    expect(caption(0, 1)).toBe('0 of 1 session with calls has loops');
    expect(caption(2, 3)).toBe('2 of 3 sessions with calls have loops');
    expect(caption(0, 2)).toBe('0 of 2 sessions with calls have loops');
  });

  it('the peak/mean and CPU rows count the sessions with samples, not the batch: a session that recorded none is named apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-analyze-unsampled-'));
    try {
      writeSyntheticBatch(dir);
      marker(dir, 'unsampled', 'session_start', T2 + 10_000);
      const three = await analyze({ dataDir: dir, all: true });
      expect([three.pooled.n_sessions, three.pooled.n_with_cpu, three.pooled.memory.n_with_peak_over_avg]).toEqual([3, 2, 2]);
      const rows = Object.fromEntries(three.comparison.map((r) => [r.id, r]));
      expect(rows['avg-cpu']!.sample_count).toBe(`${three.pooled.n_samples} samples in 2 sessions with a CPU figure (of 3 analyzed)`);
      expect(rows['peak-over-avg']!.sample_count).toBe(`${three.pooled.n_samples} samples in 2 sessions with memory samples (of 3 analyzed)`);
      // A report saved before the counts existed still reads: the batch is named.
      const { n_with_cpu: _cpu, ...older } = three.pooled;
      expect(compareWithPaper(older).find((r) => r.id === 'avg-cpu')!.sample_count).toBe(`${three.pooled.n_samples} samples in 3 sessions`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pass 4: the share of sessions with loops names its denominator, sessions with calls, in the caption, the paper row and the JSON', async () => {
    // The synthetic pair (both with calls, syn-a with a loop) plus two sessions that never made a call.
    const dir = mkdtempSync(join(tmpdir(), 'cordon-analyze-idle-'));
    try {
      writeSyntheticBatch(dir);
      for (const [i, id] of ['idle-1', 'idle-2'].entries()) {
        marker(dir, id, 'session_start', T2 + 10_000 * (i + 1));
        samples(dir, id, [{ t: T2 + 10_000 * (i + 1) + 250, mb: 100 }]);
      }
      const four = await analyze({ dataDir: dir, all: true });
      expect([four.pooled.n_sessions, four.pooled.n_sessions_with_calls, four.pooled.retry.sessions_with_groups, four.pooled.retry.share_sessions_with_groups]).toEqual([4, 2, 1, 0.5]);
      expect(reportTables(four).find((t) => t.title === 'Pass 4: retry loops')!.caption).toMatch(/^1 of 2 sessions with calls has loops \(50\.0 %; 4 sessions analyzed\);/);
      const rows = Object.fromEntries(four.comparison.map((r) => [r.id, r]));
      expect(rows['retry-sessions']!.sample_count).toBe('2 sessions with calls (of 4 analyzed)');
      expect(rows['agentsight-retry']!.sample_count).toBe('0 failing loops, longest 0 cycles, in 2 sessions with calls (of 4 analyzed)');
      // Pass 1's means name the sessions they average over: the idle ones have one sample (no span) but an active time.
      expect([four.pooled.execution.n_with_span, four.pooled.execution.n_with_active]).toEqual([2, 4]);
      expect(reportTables(four).find((t) => t.title === 'Pass 1: execution split')!.caption).toMatch(/mean over 2 sessions with a sampled span [\d.]+ %; paper definition \(Σ durations \/ active time\) mean over 4 sessions with an active time /);
      expect(rows['tool-share']!.sample_count).toBe('7 calls in 4 sessions');
      expect([four.pooled.n_with_cpu, four.pooled.memory.n_with_peak_over_avg]).toEqual([4, 4]);
      expect(rows['avg-cpu']!.sample_count).toBe(`${four.pooled.n_samples} samples in 4 sessions`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pass 4: one retry loop of three `npm test`, its time share and the 50 MiB it left', () => {
    expect(a.retry.groups).toEqual([{ command: 'npm test', count: 3, first_seq: 3, last_seq: 5, start_ts: T + 4000, end_ts: T + 6500, time_ms: 1500, unreleased_mb: 50 }]);
    expect(a.retry).toMatchObject({ longest: 3, retry_ms: 1500, share_of_tool_time: 1500 / 3850, share_of_active_time: 0.125, max_unreleased_mb: 50 });
    expect(b.retry.groups).toEqual([]);
    expect(report.pooled.retry).toEqual({
      sessions_with_groups: 1,
      share_sessions_with_groups: 0.5,
      n_groups: 1,
      longest: 3,
      mean_share_of_active_time: 0.125,
      mean_share_of_tool_time: 1500 / 3850,
      max_unreleased: { session_id: 'syn-a', value: 50 },
    });
  });

  it('pass 5: CPU–memory correlation; a constant series has none', () => {
    expect(a.correlation.n_samples).toBe(41);
    expect(a.correlation.r).toBeCloseTo(A_R, 12);
    expect(b.correlation).toEqual({ n_samples: 21, r: null });
    expect(report.pooled.correlation.n).toBe(1);
    expect(report.pooled.correlation.mean).toBeCloseTo(A_R, 12);
  });

  it('burst profile: bursts above 300 MiB inside calls, the largest change rate, burst durations', () => {
    expect(a.bursts).toMatchObject({ n_samples: 41, samples_in_calls: A_INSIDE, burst_samples: 3, burst_samples_in_calls: 3, sample_share_in_calls: A_INSIDE / 41, burst_share_in_calls: 1, max_change_mb_s: 2400, max_change_at: T + 1500, burst_durations_ms: [500], median_burst_ms: 500 });
    expect(b.bursts).toMatchObject({ samples_in_calls: 5, burst_samples: 0, burst_share_in_calls: null, max_change_mb_s: 0, median_burst_ms: null });
    expect(report.pooled.bursts).toMatchObject({ n_samples: 62, samples_in_calls: 25, burst_samples: 3, burst_samples_in_calls: 3, sample_share_in_calls: 25 / 62, burst_share_in_calls: 1, max_change: { session_id: 'syn-a', value: 2400 }, n_bursts: 1, median_burst_ms: 500 });
    expect(report.pooled.mean_avg_cpu_pct).toBe(770 / 41 / 2);
  });

  it('compares with the paper\'s §3 figures: section, figure, sample count, verdict, note', () => {
    const rows = Object.fromEntries(report.comparison.map((r) => [r.id, r]));
    // The AgentSight rows are proven in agentsight.test.ts.
    const agentCgroup = report.comparison.filter((r) => r.paper === 'AgentCgroup');
    expect(Object.fromEntries(agentCgroup.map((r) => [r.id, r.verdict]))).toEqual({
      'tool-share': 'lower', // (0.3208 + 0.2) / 2 = 0.26 < 0.364
      baseline: 'matches', // 175 in 148–222
      'peak-over-avg': 'matches', // 3.2
      'shell-share': 'matches', // 0.979 ≤ 0.981
      'test-share': 'higher', // 0.737 > 0.729
      'retry-sessions': 'lower', // 0.5
      'retry-time': 'matches', // 0.125
      'retry-unreleased': 'matches', // 50
      correlation: 'higher', // 0.512 > 0.50
      'samples-in-calls': 'matches', // 0.403
      'bursts-in-calls': 'higher', // 1.0 > 0.985
      'change-rate': 'matches', // 2400
      'burst-duration': 'lower', // 500 ms
      'avg-cpu': 'matches', // 9.39
    });
    for (const r of agentCgroup) {
      expect(r.paper_section).toMatch(/^§3\.[1-4]/);
      expect(r.paper_section).not.toContain('§6');
      expect(r.definition.length).toBeGreaterThan(10);
    }
    expect(rows.baseline!.note).toContain('process-tree RSS');
    expect(rows['change-rate']!.note).toContain('250 ms sampling vs the paper\'s 1 s');
    expect(rows['tool-share']!.note).toContain('no container start-up');
    expect(rows['samples-in-calls']!.sample_count).toBe('62 samples');
    expect(rows['tool-share']!.measured).toBe((3850 / 12000 + 0.2) / 2);
  });

  it('bursts above the absolute threshold or above each session\'s baseline', async () => {
    // 100 MiB absolute: every sample of both sessions (≥ 150) is a burst; 100 above the baseline
    // (syn-a 200 → 300, syn-b 150 → 250): only syn-a's three 800 MiB samples.
    const absolute = await analyze({ dataDir: data, all: true, options: { burstThresholdMb: 100 } });
    expect([absolute.pooled.bursts.burst_samples, absolute.pooled.bursts.burst_samples_in_calls, absolute.pooled.bursts.n_bursts]).toEqual([62, 25, 2]);
    const relative = await analyze({ dataDir: data, all: true, options: { burstThresholdMb: 100, burstAboveBaseline: true } });
    expect(relative.sessions.map((s) => s.bursts.threshold_mb)).toEqual([300, 250]);
    expect([relative.pooled.bursts.burst_samples, relative.pooled.bursts.burst_samples_in_calls, relative.pooled.bursts.median_burst_ms]).toEqual([3, 3, 500]);
    expect(relative.comparison.find((r) => r.id === 'bursts-in-calls')!.quantity).toBe('memory bursts (> 100 MiB above baseline) inside tool calls');
  });

  it('a second run reduces nothing and finds the same numbers; filters select by agent, id and date', async () => {
    const again = await analyze({ dataDir: data, all: true });
    expect(again.reduced).toEqual([]);
    expect(again.pooled).toEqual(report.pooled);
    expect((await analyze({ dataDir: data, agent: 'codex' })).sessions.map((s) => s.session_id)).toEqual(['syn-b']);
    expect((await analyze({ dataDir: data, sessions: ['syn-a'] })).sessions.map((s) => s.session_id)).toEqual(['syn-a']);
    expect((await analyze({ dataDir: data, since: T2 - 1 })).sessions.map((s) => s.session_id)).toEqual(['syn-b']);
    // No filter: the most recently active session.
    expect((await analyze({ dataDir: data })).sessions.map((s) => s.session_id)).toEqual(['syn-b']);
  });
});

describe('verdicts and rules', () => {
  it('an empty batch has no data on every row', () => {
    const empty = compareWithPaper({
      n_sessions: 0, n_samples: 0, n_calls: 0,
      execution: { mean_tool_fraction: null, mean_paper_tool_fraction: null, pooled_tool_fraction: null, n_with_span: 0 },
      memory: { median_baseline_mb: null, n_with_baseline: 0, max_peak: null, mean_peak_over_avg: null, max_peak_over_avg: null, largest_call: null, largest_spike: null },
      tools: { total_ms: 0, shell_ms: 0, shell_share: null, tools: [], categories: [] },
      retry: { sessions_with_groups: 0, share_sessions_with_groups: null, n_groups: 0, longest: 0, mean_share_of_active_time: null, mean_share_of_tool_time: null, max_unreleased: null },
      correlation: { n: 0, min: null, max: null, mean: null },
      bursts: { threshold_mb: 300, above_baseline: false, n_samples: 0, samples_in_calls: 0, burst_samples: 0, burst_samples_in_calls: 0, sample_share_in_calls: null, burst_share_in_calls: null, max_change: null, n_bursts: 0, median_burst_ms: null },
      mean_avg_cpu_pct: null,
      agentsight: { own_cost_share: null, own_cost_ms: 0, wall_ms: 0, n_with_cost: 0, share_sessions_with_failing_loops: null, failing_loops: 0, longest_failing_loop: 0, loops_broken: 0, sessions_with_loops_broken: 0, concurrent_sessions: 0 },
    });
    expect(new Set(empty.map((r) => r.verdict))).toEqual(new Set(['no data']));
  });

  it('a session without calls: shares over calls are no data, not a measured 0 %', () => {
    const base = {
      n_sessions: 1, n_samples: 40, n_calls: 0,
      execution: { mean_tool_fraction: 0, mean_paper_tool_fraction: 0, pooled_tool_fraction: 0, n_with_span: 1 },
      memory: { median_baseline_mb: 180, n_with_baseline: 1, max_peak: null, mean_peak_over_avg: null, max_peak_over_avg: null, largest_call: null, largest_spike: null },
      tools: { total_ms: 0, shell_ms: 0, shell_share: 0, tools: [], categories: [] },
      retry: { sessions_with_groups: 0, share_sessions_with_groups: 0, n_groups: 0, longest: 0, mean_share_of_active_time: null, mean_share_of_tool_time: null, max_unreleased: null },
      correlation: { n: 0, min: null, max: null, mean: null },
      bursts: { threshold_mb: 300, above_baseline: false, n_samples: 40, samples_in_calls: 0, burst_samples: 0, burst_samples_in_calls: 0, sample_share_in_calls: 0, burst_share_in_calls: null, max_change: null, n_bursts: 0, median_burst_ms: null },
      mean_avg_cpu_pct: 5,
      agentsight: { own_cost_share: null, own_cost_ms: 0, wall_ms: 0, n_with_cost: 0, share_sessions_with_failing_loops: null, failing_loops: 0, longest_failing_loop: 0, loops_broken: 0, sessions_with_loops_broken: 0, concurrent_sessions: 0 },
    };
    const rows = Object.fromEntries(compareWithPaper(base).map((r) => [r.id, r]));
    for (const id of ['tool-share', 'shell-share', 'test-share']) expect([id, rows[id]!.verdict, rows[id]!.measured]).toEqual([id, 'no data', null]);
    // Figures that rest on samples, not calls, are still measured.
    expect(rows['baseline']!.verdict).toBe('matches');
  });

  it('verdict: inside the band matches (ends included), below is lower, above is higher', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.double({ noNaN: true, min: -1e6, max: 1e6 }), fc.double({ noNaN: true, min: -1e6, max: 1e6 }), (x, p, q) => {
        const band = [Math.min(p, q), Math.max(p, q)] as const;
        const v = verdict(x, band);
        return v === (x < band[0] ? 'lower' : x > band[1] ? 'higher' : 'matches');
      }),
    );
    expect(verdict(null, [0, 1])).toBe('no data');
  });

  it('categorises shell commands by the first matching rule, at command-segment starts', () => {
    const rules = compileRules(DEFAULT_CATEGORY_RULES);
    const cases: Array<[string, string]> = [
      ['pytest -x tests/test_a.py', 'test'],
      ['cd repo && python -m pytest', 'test'],
      ['npm run test -- --watch=false', 'test'],
      ['go test ./...', 'test'],
      ['pip install -e .', 'install'],
      ['npm ci', 'install'],
      ['make -j4', 'build'],
      ['npx tsc -b', 'other'],
      ['tsc -b', 'build'],
      ['git diff HEAD~1', 'vcs'],
      ['cd /repo && git status', 'vcs'],
      ['python3 -c "print(1)"', 'interpreter'],
      ['node scripts/x.js', 'interpreter'],
      ['ls -la | grep foo', 'filesystem'],
      ['echo git', 'filesystem'],
      ['curl https://example.com', 'other'],
    ];
    for (const [command, category] of cases) expect(categorize(command, rules), command).toBe(category);
    const custom = compileRules([{ category: 'lint', pattern: '\\beslint\\b' }]);
    expect(categorize('npx eslint .', custom)).toBe('lint');
    expect(categorize('pytest', custom)).toBe('other');
    expect(() => compileRules([{ category: 'bad', pattern: '(' }])).toThrow(/rule 1 \(bad\) has an invalid pattern/);
  });

  it('insideWindows agrees with a direct check for any sorted samples and windows', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 60 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 200 })), { maxLength: 10 }), (ts, ws) => {
        const t = Float64Array.from(ts.sort((x, y) => x - y));
        const windows = ws.map(([s, l]) => [s, s + l] as [number, number]).sort((x, y) => x[0] - y[0]);
        const merged: Array<[number, number]> = [];
        for (const w of windows) {
          const last = merged[merged.length - 1];
          if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
          else merged.push([...w]);
        }
        const got = insideWindows(t, merged);
        return Array.from(t).every((x, i) => got[i] === (windows.some(([s, e]) => s <= x && x <= e) ? 1 : 0));
      }),
    );
  });
});

describe('progress bar', () => {
  const stream = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { s: { isTTY, write: (c: string) => chunks.push(c) } as unknown as NodeJS.WriteStream, chunks };
  };

  it('draws on a terminal and clears its line when done', () => {
    const { s, chunks } = stream(true);
    const bar = progressBar(s, 'analyze');
    bar.onProgress!(1, 4);
    bar.onProgress!(4, 4);
    bar.done();
    expect(chunks).toEqual([`\ranalyze [${'#'.repeat(8)}${'-'.repeat(22)}] 1/4`, `\ranalyze [${'#'.repeat(30)}] 4/4`, '\r\x1b[2K']);
  });

  it('writes nothing when stderr is not a terminal', () => {
    const { s, chunks } = stream(false);
    const bar = progressBar(s, 'analyze');
    expect(bar.onProgress).toBeUndefined();
    bar.done();
    expect(chunks).toEqual([]);
  });
});
