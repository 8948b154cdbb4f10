import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, type AnalysisReport } from '../../../src/telemetry/analyze/index.js';
import { openTelemetryDb, storeSession, type ReducedSession } from '../../../src/telemetry/reduce/index.js';
import { REPO_ROOT } from '../../../../../test/support/cli.js';

// The fixture batch: sessions of the real Claude Code, Codex and Gemini CLI recorded by
// test/e2e/hooks/record-analyze-fixtures.test.ts (the real hooks and the real 250 ms sampler),
// each scripted as: a `node -e` holding a 400 MiB buffer for 1.5 s, `npm test` failing three
// times, a write, a read (Codex: `cat`), `git --version`. Their reduced records are stored in a
// fresh database and analysed; the figures must follow from the script and agree with reduce.

const DIR = join(REPO_ROOT, 'test/fixtures/analyze');
const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as ReducedSession & { recorded_with: string });

let dir: string;
let report: AnalysisReport;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-analyze-fixtures-'));
  const db = await openTelemetryDb(join(dir, 'telemetry.sqlite3'));
  for (const f of fixtures) await storeSession(db.db, f, f.summary.session_id);
  await db.close();
  report = await analyze({ dataDir: dir, all: true, reduceFirst: false });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the real-agent fixture batch', () => {
  it('holds one session of each agent', () => {
    expect(fixtures.map((f) => f.recorded_with).sort()).toEqual(['claude-code', 'codex', 'gemini']);
    expect(report.sessions.map((s) => s.agent).sort()).toEqual(['claude-code', 'codex', 'gemini']);
    expect(report.failed).toEqual([]);
  });

  for (const f of fixtures) {
    describe(f.recorded_with, () => {
      const s = () => report.sessions.find((x) => x.session_id === f.summary.session_id)!;

      it('agrees with reduce on samples, span, tool fraction, p10 baseline and peak', () => {
        const x = s();
        expect(x.n_samples).toBe(f.summary.n_samples);
        expect(x.n_calls).toBe(7);
        expect(x.execution.span_ms).toBeCloseTo(f.summary.span_ms, 6);
        expect(x.execution.tool_fraction!).toBeCloseTo(f.summary.tool_time_fraction!, 3);
        expect(x.memory.baseline_p10_mb).toBe(f.summary.baseline_memory_mb);
        expect(x.memory.peak_mb).toBe(f.summary.peak_memory_mb);
        expect(x.execution.tool_fraction!).toBeLessThanOrEqual(1);
      });

      it('puts the 400 MiB allocation behind the largest call and its peak ≥ 400 MiB over the baseline', () => {
        const x = s();
        expect(x.memory.largest_call!.command).toMatch(/^node -e "const b = Buffer\.alloc\(400/);
        expect(x.memory.largest_call!.seq).toBe(1);
        // The spike needs a sample before the call; when the first tool_start hook is what starts
        // the sampler (Codex here), the first call has none and no spike.
        if (f.samples[0]!.t < f.calls[0]!.start_ts) {
          expect(x.memory.largest_spike!.seq).toBe(1);
          expect(x.memory.largest_spike!.value).toBeGreaterThan(350);
        } else expect(x.memory.spikes[0]).toEqual({ seq: 1, spike_mb: null });
        expect(x.memory.peak_mb! - x.memory.baseline_mb!).toBeGreaterThan(350);
        expect(x.memory.peak_over_avg!).toBeGreaterThan(1.2);
      });

      it('finds exactly the scripted retry loop: three `npm test`', () => {
        const x = s();
        expect(x.retry.groups.map((g) => [g.command, g.count, g.first_seq, g.last_seq])).toEqual([['npm test', 3, 2, 4]]);
        const calls = f.calls.filter((c) => c.seq >= 2 && c.seq <= 4);
        expect(x.retry.retry_ms).toBeCloseTo(calls.reduce((a, c) => a + c.duration_ms, 0), 6);
        expect(x.retry.groups[0]!.unreleased_mb).not.toBeNull();
      });

      it('categorises the shell calls: npm test is test, git is vcs, node -e is interpreter', () => {
        const cats = Object.fromEntries(s().tools.categories.map((c) => [c.name, c.n]));
        expect(cats).toMatchObject({ test: 3, vcs: 1, interpreter: 1 });
        expect(s().tools.shell_share!).toBeGreaterThan(0.5);
      });

      it('sees the allocation as a burst inside a call, and a correlation within [−1, 1]', () => {
        const x = s();
        expect(x.bursts.burst_samples).toBeGreaterThan(0);
        expect(x.bursts.burst_samples_in_calls).toBeGreaterThan(0);
        expect(x.bursts.max_change_mb_s!).toBeGreaterThan(100);
        expect(Math.abs(x.correlation.r!)).toBeLessThanOrEqual(1);
      });
    });
  }

  it('pools the three: every session has a retry loop; the shell share is computed over native tool names too', () => {
    expect(report.pooled.retry.share_sessions_with_groups).toBe(1);
    expect(report.pooled.retry.n_groups).toBe(3);
    expect(report.comparison.find((r) => r.id === 'retry-sessions')!.verdict).toBe('higher');
    expect(new Set(report.pooled.tools.tools.map((t) => t.name))).toEqual(new Set(['Bash', 'Write', 'Read', 'apply_patch', 'run_shell_command', 'write_file', 'read_file']));
  });
});
