import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { call } from './helpers.js';
import { reduceTextLines } from '../../../src/telemetry/reduce/output.js';
import type { ReduceResult } from '../../../src/telemetry/reduce/reduce.js';

// What `cordon reduce` prints for a figure nobody measured: words, never a dash with a unit after
// it (`peak - MiB cpu - %`, `stall - ms`).

describe('reduceTextLines', () => {
  it("a guarded call whose run measured no peak or stall says so in the guard's brackets", () => {
    const call = { seq: 1, tool_name: 'Bash', tool: 'shell', command: 'make', start_ts: 0, end_ts: 500, duration_ms: 500, peak_memory_mb: null, avg_memory_mb: null, avg_cpu_pct: null, n_samples: 0, exit_status: 'ok', exit_code: 0, hook_overhead_ms: null };
    const guard = { backend: null, enforced: false, tier: 'medium', final_tier: 'medium', limit_bytes: 1024 * 1048576, peak_bytes: null, stall_full_ms: null, events: {}, exit_code: 0, warned: false };
    const summary = { session_id: 's', agent: null, n_toolcalls: 1, n_samples: 0, span_ms: 0, live: false, tool_time_ms: 500, tool_time_fraction: null, baseline_memory_mb: null, peak_memory_mb: null, unpaired_starts: 0, orphan_ends: 0, denied_calls: 0, short_calls: 1, partial_samples: 0, bad_markers: 0, bad_samples: 0 };
    const lines = reduceTextLines({ db: '/d/t.sqlite3', sessions: [{ summary, calls: [{ ...call, guard }] }] } as unknown as ReduceResult);
    expect(lines).toContain('  #1 Bash 0.50 s no samples ok  make [guard medium 1024.0 MiB (not enforced), peak not measured, stall not measured]');
    expect(lines.join('\n')).not.toMatch(/- (MiB|%|ms)\b/);
  });
});

describe('analyze of calls that hold no sample', () => {
  let box: Sandbox | undefined;
  afterEach(() => box?.cleanup());

  it('says no call has samples instead of `largest call - MiB: - (-)`', async () => {
    box = makeSandbox('cordon-reduce-output-');
    call(box.dataDir, 's1', 'k1', 1_800_000_000_000, 1_800_000_000_500, { command: 'ls' });
    const r = await runCordon(['analyze'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('baseline = median outside calls (median over sessions -); no call has samples');
    expect(r.stdout).not.toMatch(/- (MiB|%)[^/]/);
  }, 60_000);
});
