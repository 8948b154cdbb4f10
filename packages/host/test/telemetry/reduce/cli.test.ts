import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { call, marker, samples } from './helpers.js';

// `cordon reduce` through the built bin: a thin command over reduce().

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-reduce-cli-');
});
afterEach(() => sandbox.cleanup());

const T = 1_800_000_000_000;

describe('cordon reduce', () => {
  it('prints the session summary with --json and one record per call with --jsonl', async () => {
    marker(sandbox.dataDir, 'cli-session', 'session_start', T);
    call(sandbox.dataDir, 'cli-session', 'k1', T + 100, T + 900, { command: 'node -e big' });
    call(sandbox.dataDir, 'cli-session', 'k2', T + 1000, T + 1010, { command: 'true' });
    samples(sandbox.dataDir, 'cli-session', [
      { t: T + 250, mb: 400 },
      { t: T + 500, mb: 450 },
      { t: T + 1250, mb: 100 },
    ]);
    const json = await runCordon(['reduce', '--session', 'cli-session', '--json'], { env: sandbox.env });
    expect(json.exitCode, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.db).toBe(`${sandbox.dataDir}/telemetry.sqlite3`);
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]).toMatchObject({ session_id: 'cli-session', n_toolcalls: 2, short_calls: 1, peak_memory_mb: 450, span_ms: 1000 });

    const jsonl = await runCordon(['reduce', '--jsonl'], { env: sandbox.env });
    expect(jsonl.exitCode, jsonl.stderr).toBe(0);
    const records = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((r) => [r.seq, r.command, r.peak_memory_mb, r.n_samples])).toEqual([
      [1, 'node -e big', 450, 2],
      [2, 'true', null, 0],
    ]);

    const human = await runCordon(['reduce'], { env: sandbox.env });
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain('session cli-session (claude-code): 2 calls, 3 samples');
    expect(human.stdout).toContain('shorter than a tick 1');
  }, 60_000);

  it('exits 2 naming the input for an unknown session or conflicting flags', async () => {
    call(sandbox.dataDir, 'present', 'k', T, T + 10);
    const missing = await runCordon(['reduce', '--session', 'absent-session'], { env: sandbox.env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--session "absent-session"');
    const both = await runCordon(['reduce', '--jsonl', '--json'], { env: sandbox.env });
    expect(both.exitCode).toBe(2);
    expect(both.stdout + both.stderr).toContain('--jsonl and --json');
    const exclusive = await runCordon(['reduce', '--all', '--session', 'present'], { env: sandbox.env });
    expect(exclusive.exitCode).toBe(2);
  }, 60_000);
});
