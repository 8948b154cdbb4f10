import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';
import { alive } from '../../../../test/support/process.js';
import { waitFor } from '../../../../test/support/wait.js';

// An interrupted `check` (Ctrl-C, a CI cancellation, `kill`) ends what it started before it
// ends itself: its verifier runs in a process group of its own, which a signal sent to cordon
// (or to the terminal's group) never reaches, and its private git directory lives in the temp
// directory (src/process/interrupt.ts). Found by a fresh user: `sleep 30` and `npm test` kept
// running after Ctrl-C, and `/tmp/cordon-git-*` stayed until the next check.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-check-interrupt-');
});
afterEach(() => sandbox.cleanup());

/** A verifier that writes its pid to `pidFile`, then sleeps until ended. */
const sleepingVerifier = (pidFile: string) => `sh -c 'echo $$ > ${pidFile}; exec sleep 30'`;

/**
 * `cordon <args>` started in `cwd`, its output collected, once the verifier has written its pid
 * to `pidFile` (so an interrupt sent now comes while the verifier runs).
 */
async function checkWithVerifierRunning(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, pidFile: string) {
  const child = spawn(process.execPath, [CORDON_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', { what: 'the verifier to write its pid', timeoutMs: 60_000 });
  return { child, ended, out, verifierPid: Number(readFileSync(pidFile, 'utf8')) };
}

describe.each([
  ['the fast route', [] as string[]],
  ['the oclif command', ['--format', 'junit']],
])('an interrupted check, %s', (_route, extra) => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s ends the running verifier and removes the private directories, then ends by that signal', async (signal) => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n', '.gitignore': 'build/\n' }, sandbox.env);
    const pidFile = join(sandbox.root, 'verifier.pid');
    expect((await runCordon(['arm', 'interrupt', '--allow', 'src/**', '--verify', sleepingVerifier(pidFile)], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/app.py': 'y\n' });
    const tmp = sandbox.dir('tmp');
    const { child, ended, out, verifierPid } = await checkWithVerifierRunning(['check', ...extra], repo, { ...sandbox.env, TMPDIR: tmp }, pidFile);
    expect(alive(verifierPid)).toBe(true);
    expect(readdirSync(tmp).filter((n) => n.startsWith('cordon-git-'))).toHaveLength(1);
    child.kill(signal);
    const end = await ended;
    expect(end, out.stderr).toEqual({ code: null, signal });
    // The verifier got SIGTERM with cordon's exit (sleep ends on it at once).
    await waitFor(() => !alive(verifierPid), { what: `verifier ${verifierPid} to end`, timeoutMs: 3_000 });
    expect(readdirSync(tmp)).toEqual([]);
    // Nothing of the envelope changes and no verdict is printed: the verifier the interrupt
    // ended is no failed verifier (a fresh user saw `rejected: … verifier failed (signal
    // SIGTERM)` printed and saved after Ctrl-C).
    expect(out.stdout).toBe('');
    expect(out.stderr).not.toMatch(/verifier failed|rejected/);
    const state = JSON.parse(readFileSync(join(repo, '.cordon', 'state.json'), 'utf8')) as { phase: string; last_audit: unknown };
    expect(state.phase).toBe('armed');
    expect(state.last_audit).toBeNull();
    expect(existsSync(join(repo, '.cordon', 'audit.json'))).toBe(false);
  });
});

describe('an interrupted range check (check --base)', () => {
  it('prints no report: the verifier the interrupt ended is no failed verifier', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n' }, sandbox.env);
    writeFiles(repo, { 'src/app.py': 'y\n' });
    git(repo, ['commit', '-qam', 'change'], sandbox.env);
    const pidFile = join(sandbox.root, 'verifier.pid');
    const { child, ended, out } = await checkWithVerifierRunning(['check', '--base', 'HEAD~1', '--allow', 'src/**', '--verify', sleepingVerifier(pidFile), '--format', 'github'], repo, sandbox.env, pidFile);
    child.kill('SIGTERM');
    expect(await ended, out.stderr).toEqual({ code: null, signal: 'SIGTERM' });
    expect(out).toEqual({ stdout: '', stderr: '' });
  });
});
