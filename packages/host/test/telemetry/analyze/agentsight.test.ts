import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type AnalysisReport } from '../../../src/telemetry/analyze/index.js';
import { renderHtml } from '../../../src/telemetry/analyze/report/html.js';
import { renderJson, renderMarkdown, renderText } from '../../../src/telemetry/analyze/report/text.js';
import { sessionDir } from '../../../src/telemetry/session-dir.js';
import { call, marker, samples } from '../reduce/helpers.js';
import { T, T2, writeSyntheticBatch } from './synthetic.js';

// Issue 28: the AgentSight rows (AgentSight: System-Level Observability for AI Agents Using eBPF,
// arXiv 2508.02736, §5.1, §5.2.2, §5.2.3) on the synthetic batch plus a third session, every
// figure derived by hand. The synthetic writers give every marker hook_overhead_ms 40.

let data: string;
let report: AnalysisReport;

/** Appends sampler events (sampler.jsonl) for a session. */
function samplerEvents(session: string, events: object[]): void {
  for (const e of events) appendFileSync(join(sessionDir(data, session), 'sampler.jsonl'), `${JSON.stringify(e)}\n`);
}

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), 'cordon-agentsight-'));
  writeSyntheticBatch(data);
  // syn-a: 14 markers (560 ms of hooks); one sampler that logged 100 ms of its own CPU.
  samplerEvents('syn-a', [
    { event: 'start', t: T - 900, pid: 9, generation: 1 },
    { event: 'stop', t: T + 10_500, pid: 9, generation: 1, reason: 'stop-file', self_cpu_pct: 5, self_cpu_ms: 100 },
  ]);
  // syn-b: 2 markers (80 ms); an older sampler that logged only 1 % over 5 s: 50 ms.
  samplerEvents('syn-b', [
    { event: 'start', t: T2, pid: 10, generation: 1 },
    { event: 'stop', t: T2 + 5000, pid: 10, generation: 1, reason: 'agent-exit', self_cpu_pct: 1 },
  ]);
  // syn-c, running at the same time as syn-a: `make` failing four times in a row, then `ls`, then
  // `pytest` failing twice (too short a loop), and one `pytest` passing.
  const C = T + 2000;
  marker(data, 'syn-c', 'session_start', C);
  const failed = { exit_status: 'failed', exit_code: 2 } as const;
  // The hook's loop breaker answered the third and fourth failure of `make`: one loop broken.
  const answered = [{}, {}, { loop_failures: 3 }, { loop_failures: 4, loop_repeat: true }];
  for (let i = 0; i < 4; i++) call(data, 'syn-c', `m${i}`, C + 100 + i * 200, C + 200 + i * 200, { command: 'make', ...failed, ...answered[i] });
  call(data, 'syn-c', 'l', C + 1000, C + 1100, { command: 'ls' });
  call(data, 'syn-c', 'p1', C + 1200, C + 1300, { command: 'pytest', ...failed });
  call(data, 'syn-c', 'p2', C + 1400, C + 1500, { command: 'pytest', ...failed });
  call(data, 'syn-c', 'p3', C + 1600, C + 1700, { command: 'pytest' });
  marker(data, 'syn-c', 'session_end', C + 2000);
  samples(data, 'syn-c', [{ t: C + 500, mb: 100 }]);
  report = await analyze({ dataDir: data, all: true });
});
afterAll(() => rmSync(data, { recursive: true, force: true }));

const row = (id: string) => report.comparison.find((r) => r.id === id)!;

describe('AgentSight rows', () => {
  it("cordon's own cost: hook time plus sampler CPU over session wall time, against < 3 %", () => {
    const a = report.sessions.find((s) => s.session_id === 'syn-a')!;
    const b = report.sessions.find((s) => s.session_id === 'syn-b')!;
    const c = report.sessions.find((s) => s.session_id === 'syn-c')!;
    expect(a.own_cost).toEqual({ hook_ms: 560, sampler_cpu_ms: 100, wall_ms: 12_000, share: 660 / 12_000 });
    expect(b.own_cost).toEqual({ hook_ms: 80, sampler_cpu_ms: 50, wall_ms: 5000, share: 130 / 5000 });
    // syn-c: 2 + 8 × 2 markers, no sampler events.
    expect(c.own_cost).toEqual({ hook_ms: 18 * 40, sampler_cpu_ms: null, wall_ms: 2000, share: 720 / 2000 });
    const overhead = row('agentsight-overhead');
    expect(overhead).toMatchObject({ paper: 'AgentSight', paper_section: 'AgentSight §5.1, Table 1', band: [0, 0.03], measured: (660 + 130 + 720) / 19_000, verdict: 'higher' });
    expect(overhead.sample_count).toBe('3 sessions, 1.5 s of 19.0 s');
    expect(overhead.paper_figure).toContain('< 3 %');
  });

  it('failing retry loops: one identical failing command, ≥ 3 cycles', () => {
    const c = report.sessions.find((s) => s.session_id === 'syn-c')!;
    expect(c.failing_loops).toEqual({ n: 1, longest: 4, time_ms: 400 });
    // syn-a's `npm test` ×3 passed: a retry loop, not a failing one.
    expect(report.sessions.find((s) => s.session_id === 'syn-a')!.failing_loops).toEqual({ n: 0, longest: 0, time_ms: 0 });
    expect(row('agentsight-retry')).toMatchObject({ paper_section: 'AgentSight §5.2.2', measured: 1 / 3, verdict: 'matches', sample_count: '1 failing loop, longest 4 cycles, in 3 sessions with calls' });
  });

  it('loops broken by the hook, per session and pooled, in every report format', async () => {
    expect(Object.fromEntries(report.sessions.map((s) => [s.session_id, s.loops_broken]))).toEqual({ 'syn-a': 0, 'syn-b': 0, 'syn-c': 1 });
    expect(report.pooled.agentsight).toMatchObject({ loops_broken: 1, sessions_with_loops_broken: 1 });
    expect(JSON.parse(renderJson(report)).sessions.find((x: { session_id: string }) => x.session_id === 'syn-c').loops_broken).toBe(1);
    expect(renderText(report)).toMatch(/Failing loops \(AgentSight §5\.2\.2\) and the loops the hook broke[\s\S]*the loop breaker broke 1 loop in 1 session[\s\S]*syn-c +1 +4 +0\.40 +1\n/);
    expect(renderMarkdown(report)).toContain('| syn-c | 1 | 4 | 0.40 | 1 |');
    // The table is under test, not the charts: an empty drawing stands in for @cordon/charts.
    expect(await renderHtml(report, async () => '<svg></svg>')).toMatch(/<td>syn-c<\/td><td>1<\/td><td>4<\/td><td>0\.40<\/td><td>1<\/td>/);
  });

  it('multi-agent blocking is not measurable: no data, with the concurrent sessions counted', () => {
    expect(report.pooled.agentsight.concurrent_sessions).toBe(2); // syn-a and syn-c overlap
    expect(row('agentsight-blocking')).toMatchObject({ paper_section: 'AgentSight §5.2.3', measured: null, verdict: 'no data', sample_count: '2 of 3 sessions ran concurrently with another' });
  });

  it('a batch without failing loops is lower on the retry row, and every AgentSight row cites §5', async () => {
    const two = await analyze({ dataDir: data, sessions: ['syn-a', 'syn-b'] });
    expect(row('agentsight-retry').paper).toBe('AgentSight');
    expect(two.comparison.find((r) => r.id === 'agentsight-retry')).toMatchObject({ measured: 0, verdict: 'lower' });
    expect(two.comparison.find((r) => r.id === 'agentsight-overhead')!.measured).toBe((660 + 130) / 17_000);
    for (const r of report.comparison.filter((x) => x.paper === 'AgentSight')) expect(r.paper_section).toMatch(/^AgentSight §5\.(1|2\.[23])/);
  });
});
