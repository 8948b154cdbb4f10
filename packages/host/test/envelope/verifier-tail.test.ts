import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutTextMiddle } from '@cordon/plugin-api';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { runVerifiers } from '../../src/envelope/index.js';
import { recoveryFor } from '../../src/envelope/attempt/prompt.js';
import type { AuditRecord } from '../../src/envelope/audit/record.js';
import { errorLineAbove, outputTail, TAIL_LINES } from '../../src/envelope/render.js';
import type { VerifierResult } from '../../src/envelope/verify/run.js';

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

describe('a tail that starts inside a stack trace keeps the line naming the error', () => {
  it('check shows a real Node error thrown under a long trace: the message line, how many lines were left out, then the last frames', async () => {
    // 40 nested calls: the last 20 lines are all frames, the message line is above them. Each frame
    // its own function: Node 22 and later print repeated frames as one "collapsed" line.
    const script = ['Error.stackTraceLimit = 60;', "function f0() { throw new TypeError('the useful message'); }", ...Array.from({ length: 40 }, (_, i) => `function f${i + 1}() { f${i}(); }`), 'f40();', ''].join('\n');
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n', 'deep.js': script }, sandbox.env);
    expect((await runCordon(['arm', 'x', '--allow', 'src/**', '--verify', 'node deep.js'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/a.txt': 'b\n' });
    const r = await runCordon(['check'], { env: sandbox.env, cwd: repo });
    expect(r.exitCode, r.stderr).toBe(3);
    const lines = r.stdout.split('\n');
    const header = lines.indexOf('    (last lines of stderr:)');
    expect(header, r.stdout).toBeGreaterThan(0);
    expect(lines[header + 1]).toMatch(/^    TypeError: the useful message$/);
    expect(lines[header + 2]).toMatch(/^    \u2026 \(\d+ lines left out\)$/);
    expect(lines[header + 3]).toMatch(/^        at f\d+ \(/);
    const after = lines.findIndex((l, i) => i > header && l !== '' && !l.startsWith('    '));
    const shown = lines.slice(header + 1, after < 0 ? undefined : after);
    while (shown.at(-1) === '') shown.pop();
    expect(shown.length).toBeLessThanOrEqual(TAIL_LINES);
    // The lines left out and the frames shown are every line Node printed below the message.
    const left = Number(/\((\d+) lines left out\)/.exec(lines[header + 2]!)![1]);
    const printed = spawnSync(process.execPath, ['deep.js'], { cwd: repo, encoding: 'utf8' }).stderr.trimEnd().split('\n');
    expect(left + shown.length - 2).toBe(printed.length - 1 - printed.indexOf('TypeError: the useful message'));
    expect(shown.at(-1)).toBe(`    ${printed.at(-1)}`);
  }, 60_000);

  it('with long frames the character limit leaves out more lines, and the note counts them', () => {
    const frames = Array.from({ length: 40 }, (_, i) => `    at frame${i} (${'/very/long/path/'.repeat(12)}f${i}.js:1:1)`);
    const stderr = ['boot', 'RangeError: the useful message', ...frames, ''].join('\n');
    const result = { command: 'x', argv: ['x'], passed: false, returncode: 1, signal: null, timed_out: false, output_limited: false, output_not_closed: false, start_error: null, duration_ms: 1, stdout: '', stderr } as unknown as VerifierResult;
    const tail = outputTail(result);
    expect(tail[0]).toBe('(last lines of stderr:)');
    expect(tail[1]).toBe('RangeError: the useful message');
    const left = Number(/^\u2026 \((\d+) lines left out\)$/.exec(tail[2]!)![1]);
    const shown = tail.slice(3);
    expect(shown.length).toBeLessThan(TAIL_LINES - 2);
    expect(left + shown.length).toBe(frames.length);
    expect(shown.at(-1)).toBe(frames.at(-1));
  });

  it('finds the error line above Node, Java, Python and Go traces, and nothing where the tail is not in a trace', () => {
    const node = ['noise', 'Error: boom', '    at a (x.js:1:1)', '    at b (x.js:2:1)', '    at c (x.js:3:1)'];
    expect(errorLineAbove(node, 3)).toBe(1);
    const java = ['Exception in thread "main" java.lang.IllegalStateException: bad', '\tat A.f(A.java:3)', '\tat A.main(A.java:9)'];
    expect(errorLineAbove(java, 2)).toBe(0);
    const go = ['panic: runtime error: index out of range', '', 'goroutine 1 [running]:', 'main.main()', '\t/src/main.go:8 +0x1d'];
    // Go's trace holds unindented lines: the nearest one above is no error line, so nothing is kept.
    expect(errorLineAbove(go, 4)).toBeUndefined();
    const python = ['Traceback (most recent call last):', '  File "a.py", line 3, in <module>', '    f()', 'ValueError: bad'];
    expect(errorLineAbove(python, 3)).toBeUndefined();
    expect(errorLineAbove(['ok 1', 'ok 2', 'not ok 3'], 2)).toBeUndefined();
    expect(errorLineAbove(['build finished', '    at step 3'], 1)).toBeUndefined();
  });
});
