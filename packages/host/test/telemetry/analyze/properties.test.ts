import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeSession, compileRules, DEFAULT_ANALYZE_OPTIONS, DEFAULT_CATEGORY_RULES, type SessionData } from '../../../src/telemetry/analyze/index.js';
import type { SessionRow, ToolCallRow } from '../../../src/telemetry/reduce/index.js';

// Invariants of the passes over arbitrary sessions (pure analyzeSession, no database).

const rules = compileRules(DEFAULT_CATEGORY_RULES);
const COMMANDS = ['pytest', 'npm test', 'git status', 'ls', 'make'];

const sessionArb = fc
  .record({
    samples: fc.array(fc.record({ dt: fc.integer({ min: 1, max: 2000 }), mem: fc.double({ min: 0, max: 5000, noNaN: true }), cpu: fc.double({ min: 0, max: 400, noNaN: true }) }), { maxLength: 80 }),
    calls: fc.array(fc.record({ at: fc.integer({ min: -2000, max: 60_000 }), len: fc.integer({ min: 0, max: 10_000 }), shell: fc.boolean(), cmd: fc.integer({ min: 0, max: COMMANDS.length - 1 }) }), { maxLength: 25 }),
  })
  .map(({ samples, calls }): SessionData => {
    let t = 1_000_000;
    const ts = samples.map((s) => (t += s.dt));
    const callRows: ToolCallRow[] = calls
      .map((c, i) => ({ ...c, i }))
      .sort((a, b) => a.at - b.at)
      .map((c, k) => ({
        session_id: 's', machine: '', seq: k + 1, call_key: `k${c.i}`, tool_name: c.shell ? 'Bash' : 'Read', tool: c.shell ? 'shell' : 'read', command: COMMANDS[c.cmd]!,
        start_ts: 1_000_000 + c.at, end_ts: 1_000_000 + c.at + c.len, duration_ms: c.len, peak_memory_mb: null, avg_memory_mb: null, avg_cpu_pct: null, n_samples: 0, exit_status: 'ok', exit_code: null, hook_overhead_ms: null,
      }));
    const firstTs = Math.min(ts[0] ?? Infinity, ...callRows.map((c) => c.start_ts));
    const lastTs = Math.max(ts[ts.length - 1] ?? -Infinity, ...callRows.map((c) => c.end_ts));
    const session = { session_id: 's', dir_name: 's', agent: 'x', first_ts: Number.isFinite(firstTs) ? firstTs : null, last_ts: Number.isFinite(lastTs) ? lastTs : null } as SessionRow;
    return { session, calls: callRows, t: Float64Array.from(ts), mem: Float64Array.from(samples.map((s) => s.mem)), cpu: Float64Array.from(samples.map((s) => s.cpu)) };
  });

describe('pass invariants over arbitrary sessions', () => {
  it('fractions stay in [0, 1], the union never exceeds the sum, r in [−1, 1], loops are ≥ 3 identical shell calls', () => {
    fc.assert(
      fc.property(sessionArb, (d) => {
        const { analysis: a } = analyzeSession(d, rules, DEFAULT_ANALYZE_OPTIONS);
        const within = (v: number | null) => v === null || (v >= 0 && v <= 1 + 1e-12);
        expect(within(a.execution.tool_fraction)).toBe(true);
        expect(a.execution.tool_union_ms).toBeLessThanOrEqual(a.execution.span_ms + 1e-9);
        expect(within(a.bursts.sample_share_in_calls) && within(a.bursts.burst_share_in_calls)).toBe(true);
        expect(a.bursts.burst_samples_in_calls).toBeLessThanOrEqual(a.bursts.burst_samples);
        if (a.correlation.r !== null) expect(Math.abs(a.correlation.r)).toBeLessThanOrEqual(1);
        const shares = a.tools.tools.reduce((s, r) => s + (r.share ?? 0), 0);
        if (a.tools.total_ms > 0) expect(shares).toBeCloseTo(1, 9);
        expect(a.tools.categories.reduce((s, r) => s + r.n, 0)).toBe(d.calls.filter((c) => c.tool === 'shell').length);
        for (const g of a.retry.groups) {
          expect(g.count).toBeGreaterThanOrEqual(3);
          const run = d.calls.filter((c) => c.seq >= g.first_seq && c.seq <= g.last_seq);
          expect(run).toHaveLength(g.count);
          expect(run.every((c) => c.tool === 'shell' && c.command === g.command)).toBe(true);
        }
        if (a.memory.peak_mb !== null) {
          expect(a.memory.peak_mb).toBeGreaterThanOrEqual(a.memory.avg_mb! - 1e-9);
          if (a.memory.baseline_mb !== null) expect(a.memory.baseline_mb).toBeLessThanOrEqual(a.memory.peak_mb);
        }
      }),
      { numRuns: 300 },
    );
  });
});
