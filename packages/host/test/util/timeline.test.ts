import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { REPO } from '../hot/support.js';

// CORDON_TIMELINE=1 (src/util/timeline.ts): a fast route prints where its time went, one line per
// phase, on stderr at exit; without the variable nothing is printed and nothing else changes.

let sandbox: Sandbox;

beforeEach(() => {
  sandbox = makeSandbox();
  linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/cgroup-linux', root: join(REPO, 'plugins/cgroup-linux') }]);
});

afterEach(() => sandbox.cleanup());

/** The table's rows: label, then wall ms, +wall, and (but for Node's start-up) CPU ms, +CPU, minor page faults and +faults. */
function rows(stderr: string): Array<{ label: string; numbers: number[] }> {
  const lines = stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^phase ends\s+wall ms\s+\+wall\s+cpu ms\s+\+cpu\s+faults\s+\+faults$/);
  return lines.slice(1).map((line) => {
    const m = /^(.+?)\s{2,}(-?[\d.]+(?:\s+-?[\d.]+)*)$/.exec(line);
    expect(m, line).not.toBeNull();
    return { label: m![1]!.trim(), numbers: m![2]!.split(/\s+/).map(Number) };
  });
}

describe('CORDON_TIMELINE', () => {
  it('control run: the phases in order on stderr, wall and CPU growing; same exit status and record', async () => {
    const r = await runCordon(['control', 'run', '--', 'sh', '-c', 'exit 7'], { env: { ...sandbox.env, CORDON_TIMELINE: '1' } });
    expect(r.exitCode).toBe(7);
    expect(r.stdout).toBe('');
    const table = rows(r.stderr);
    expect(table.map((row) => row.label)).toEqual(['node start-up', 'bundle loaded', 'plugins loaded', 'command started', 'command ended', 'run recorded', 'exit']);
    const marks = table.slice(1);
    for (const row of marks) expect(row.numbers).toHaveLength(6);
    for (let i = 1; i < marks.length; i++) {
      expect(marks[i]!.numbers[0]!).toBeGreaterThanOrEqual(marks[i - 1]!.numbers[0]!);
      expect(marks[i]!.numbers[2]!).toBeGreaterThanOrEqual(marks[i - 1]!.numbers[2]!);
      // Faults are whole numbers that only grow, and each +faults is the difference to the row before.
      expect(Number.isInteger(marks[i]!.numbers[4])).toBe(true);
      expect(marks[i]!.numbers[4]! - marks[i - 1]!.numbers[4]!).toBe(marks[i]!.numbers[5]);
    }
    // Node's start-up alone touches thousands of pages before the first mark.
    expect(marks[0]!.numbers[4]!).toBeGreaterThan(100);
  });

  it('off unless set to 1: nothing on stderr', async () => {
    for (const value of [undefined, '0', '']) {
      const env = { ...sandbox.env, CORDON_TIMELINE: value };
      if (value === undefined) delete env.CORDON_TIMELINE;
      const r = await runCordon(['control', 'run', '--', 'true'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
    }
  });
});
