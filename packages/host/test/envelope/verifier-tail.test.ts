import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutTextMiddle } from '@cordon/plugin-api';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { runVerifiers } from '../../src/envelope/index.js';
import { recoveryFor } from '../../src/envelope/attempt/prompt.js';
import type { AuditRecord } from '../../src/envelope/audit/record.js';

// Issue 29: a verifier's output longer than the evidence keeps its head AND its tail, so the
// summary a test runner prints last (`# fail 60`, pytest's and jest's last lines) reaches the
// text, GitHub, JUnit and SARIF reports and what `resume` tells the agent.

/** Three runners' long failing outputs, each ending with its summary line. */
const RUNNERS: Array<{ name: string; script: string; summary: string }> = [
  { name: 'tape', script: `for (let i = 1; i <= 400; i++) console.log('not ok ' + i + ' should be equal\\n  ---\\n    operator: equal\\n    expected: ' + i + '\\n    actual:   0\\n  ...'); console.log('\\n1..400\\n# tests 400\\n# pass  340\\n# fail  60'); process.exitCode = 1;`, summary: '# fail  60' },
  { name: 'pytest', script: `for (let i = 0; i < 600; i++) process.stderr.write('E       AssertionError: assert ' + i + ' == 0 in tests/test_mod.py::test_case_' + i + '\\n'); process.stderr.write('=========== 57 failed, 3 passed in 4.20s ===========\\n'); process.exitCode = 1;`, summary: '57 failed, 3 passed in 4.20s' },
  { name: 'jest', script: `for (let i = 0; i < 500; i++) process.stderr.write('  ● suite › case ' + i + '\\n\\n    expect(received).toBe(expected)\\n'); process.stderr.write('Tests:       58 failed, 2 passed, 60 total\\nTime:        3.1 s\\n'); process.exitCode = 1;`, summary: 'Tests:       58 failed, 2 passed, 60 total' },
];

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-verifier-tail-');
});
afterEach(() => sandbox.cleanup());

describe('verifier output keeps head and tail', () => {
  it('the evidence, the recovery context and cutTextMiddle keep the end', async () => {
    const cwd = sandbox.dir('v');
    for (const r of RUNNERS) {
      writeFiles(cwd, { [`${r.name}.js`]: r.script });
      const [result] = await runVerifiers({ commands: [`node ${r.name}.js`], timeout_seconds: 60, output_cap: 4 << 20 }, { cwd });
      const stream = result!.stderr.trim() ? result!.stderr : result!.stdout;
      expect(result![result!.stderr.trim() ? 'stderr_cut' : 'stdout_cut'], r.name).toMatchObject({ head_bytes: 8192 });
      expect(stream, r.name).toContain(r.summary);
      expect(Buffer.byteLength(stream)).toBeLessThan(16 * 1024 + 100);
      const audit = { verification: [result!], changed_files: [] } as unknown as AuditRecord;
      const recovery = recoveryFor(1, 'rejected', audit, audit);
      expect(recovery.failedVerifiers[0]!.output, r.name).toContain(r.summary);
      expect(recovery.failedVerifiers[0]!.output.length).toBeLessThanOrEqual(2000);
    }
    expect(cutTextMiddle('abcdefghij'.repeat(10), 20, '|')).toBe('abcd|fghijabcdefghij');
    expect(cutTextMiddle('short', 20)).toBe('short');
  }, 60_000);

  it('check prints the summary in text, github, junit and sarif', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n', ...Object.fromEntries(RUNNERS.map((r) => [`${r.name}.js`, r.script])) }, sandbox.env);
    const verify = RUNNERS.flatMap((r) => ['--verify', `node ${r.name}.js`]);
    expect((await runCordon(['arm', 'x', '--allow', 'src/**', ...verify], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/a.txt': 'b\n' });
    for (const format of ['text', 'github', 'junit', 'sarif']) {
      const r = await runCordon(['check', '--format', format], { env: sandbox.env, cwd: repo });
      expect(r.exitCode, r.stderr).toBe(3);
      for (const runner of RUNNERS) expect(r.stdout, `${format} ${runner.name}`).toContain(runner.summary);
    }
    const text = await runCordon(['check'], { env: sandbox.env, cwd: repo });
    expect(text.stdout).toMatch(/longer than 16 KiB, \d+ bytes of its middle left out; its last lines:/);
    // A blank line of the output stays blank, not four spaces (found by a fresh user in the demo).
    expect(text.stdout).toMatch(/\n\n/);
    expect(text.stdout.split('\n').filter((line) => /\s$/.test(line))).toEqual([]);
  }, 120_000);
});
