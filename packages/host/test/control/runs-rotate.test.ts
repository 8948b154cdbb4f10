import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { readGuardRuns } from '../../src/control/guard-join.js';
import { RUNS_ROTATE_BYTES, runsFile } from '../../src/control/store.js';

// `control run` appends a record per call to <data>/control/runs.jsonl, and `cordon reduce` read
// the whole file on every run: with `control guard` on, thousands of lines a day, without bound.
// The file now becomes runs.jsonl.1 at RUNS_ROTATE_BYTES, and reduce reads both.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-runs-rotate-')));
afterEach(() => box.cleanup());

describe('control run records rotate', () => {
  it('a full runs.jsonl becomes runs.jsonl.1 and a new one begins; the guard join reads both, older first', async () => {
    const first = await runCordon(['control', 'run', '--session', 'old-session', '--', 'true'], { cwd: box.root, env: box.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const file = runsFile(box.dataDir);
    const line = readFileSync(file, 'utf8');
    writeFileSync(file, line.repeat(Math.ceil(RUNS_ROTATE_BYTES / line.length)));
    const full = statSync(file).size;
    expect(full).toBeGreaterThanOrEqual(RUNS_ROTATE_BYTES);

    const next = await runCordon(['control', 'run', '--session', 'new-session', '--', 'true'], { cwd: box.root, env: box.env });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(statSync(`${file}.1`).size).toBe(full);
    expect(readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { session_id: string }).session_id)).toEqual(['new-session']);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const runs = readGuardRuns(box.dataDir);
    expect(runs.at(0)?.session_id).toBe('old-session');
    expect(runs.at(-1)?.session_id).toBe('new-session');
    expect(runs.length).toBe(full / line.length + 1);
  });

  it('a runs.jsonl under the size is appended to as before', async () => {
    for (const s of ['a', 'b']) expect((await runCordon(['control', 'run', '--session', s, '--', 'true'], { cwd: box.root, env: box.env })).exitCode).toBe(0);
    expect(existsSync(`${runsFile(box.dataDir)}.1`)).toBe(false);
    expect(readGuardRuns(box.dataDir).map((r) => r.session_id)).toEqual(['a', 'b']);
  });
});
