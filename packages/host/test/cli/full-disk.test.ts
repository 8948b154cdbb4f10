import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';

// Standard output on a full disk (/dev/full: every write fails with ENOSPC). Before, every
// command died with Node's stack trace, and a plain `cordon check` whose verdict could not be
// printed ran again through oclif, its verifiers a second time. Now the output ends, one line on
// stderr says why, and the exit code is 1 unless the command's own is already non-zero; the
// hook, which never breaks an agent, still exits 0 and says nothing.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-full-disk-')));
afterEach(() => box.cleanup());

const FULL = 'cordon: could not write standard output: no space left on the device (ENOSPC); what was printed is incomplete\n';

/** Runs the built CLI with its standard output on /dev/full; stderr collected. */
function toFullDisk(args: readonly string[], options: { cwd?: string; input?: string } = {}): Promise<{ exitCode: number | null; stderr: string }> {
  const full = openSync('/dev/full', 'w');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CORDON_BIN, ...args], { cwd: options.cwd, env: box.env, stdio: ['pipe', full, 'pipe'] });
    closeSync(full);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stderr }));
    child.stdin!.end(options.input ?? '');
  });
}

describe.runIf(process.platform === 'linux')('standard output on a full disk', () => {
  it('oclif commands, help and the version: one line on stderr, exit 1, no stack trace', async () => {
    linkPlugins(box.dataDir, ['claude-code']);
    for (const args of [['--version'], ['--help'], ['doctor'], ['plugins'], ['control', 'probe'], ['info']]) {
      expect([args, await toFullDisk(args)]).toEqual([args, { exitCode: 1, stderr: FULL }]);
    }
  }, 120_000);

  it('check: the verdict is saved, its verifiers run once, and the exit code says the output is incomplete (3 stays 3)', async () => {
    const counter = join(box.dir('outside'), 'runs');
    writeFileSync(counter, '');
    const repo = makeRepo(box.dir('repo'), { 'a.txt': 'a\n' }, box.env);
    const armed = await runCordon(['arm', 'full', '--allow', 'a.txt', '--verify', `sh -c 'echo run >> ${counter}'`], { env: box.env, cwd: repo });
    expect(armed.exitCode, armed.stderr).toBe(0);
    writeFileSync(join(repo, 'a.txt'), 'b\n');
    for (const args of [['check'], ['check', '--json'], ['status', '--json']]) {
      expect([args, await toFullDisk(args, { cwd: repo })]).toEqual([args, { exitCode: 1, stderr: FULL }]);
    }
    expect(readFileSync(counter, 'utf8')).toBe('run\nrun\n');
    // A rejection keeps its own code: the output failed, and the verdict is still a rejection.
    writeFileSync(join(repo, 'b.txt'), 'outside the policy\n');
    expect(await toFullDisk(['check'], { cwd: repo })).toEqual({ exitCode: 3, stderr: FULL });
    const status = await runCordon(['status', '--json'], { env: box.env, cwd: repo });
    expect(JSON.parse(status.stdout)).toMatchObject({ phase: 'rejected' });
  }, 120_000);

  it('control run --json relaying a command that never stops writing: the relay stops, the command ends, its status stays', async () => {
    // Before the relay listened for every stdout error, it went on reading `yes` for ever.
    const r = await toFullDisk(['control', 'run', '--json', '--', 'yes']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(FULL);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  // A guard: the rule above must not reach the hook (it held before too).
  it('the hook with a decision to print still exits 0 and says nothing', async () => {
    linkPlugins(box.dataDir, ['claude-code', 'cgroup-linux']);
    // `control guard` on: the hook rewrites a shell call, so it has a decision to print.
    mkdirSync(box.configDir, { recursive: true });
    writeFileSync(join(box.configDir, 'control.json'), JSON.stringify({ guard: { 'claude-code': true } }));
    const payload = JSON.stringify({ session_id: 'full-disk', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: '/tmp' });
    const piped = await runCordon(['hook', '--agent', 'claude-code'], { env: box.env, input: payload });
    expect(piped.stdout).toContain('updatedInput');
    expect(await toFullDisk(['hook', '--agent', 'claude-code'], { input: payload })).toEqual({ exitCode: 0, stderr: '' });
  }, 120_000);
});
