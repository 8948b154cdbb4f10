import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';

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

/** Whether process `pid` still runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor(what: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (what()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return what();
}

describe.each([
  ['the fast route', [] as string[]],
  ['the oclif command', ['--format', 'junit']],
])('an interrupted check, %s', (_route, extra) => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s ends the running verifier and removes the private directories, then ends by that signal', async (signal) => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n', '.gitignore': 'build/\n' }, sandbox.env);
    const pidFile = join(sandbox.root, 'verifier.pid');
    const verifier = `sh -c 'echo $$ > ${pidFile}; exec sleep 30'`;
    expect((await runCordon(['arm', 'interrupt', '--allow', 'src/**', '--verify', verifier], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/app.py': 'y\n' });
    const tmp = sandbox.dir('tmp');
    const child = spawn(process.execPath, [CORDON_BIN, 'check', ...extra], { cwd: repo, env: { ...sandbox.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
    expect(await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 20_000)).toBe(true);
    const verifierPid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(verifierPid)).toBe(true);
    expect(readdirSync(tmp).filter((n) => n.startsWith('cordon-git-'))).toHaveLength(1);
    child.kill(signal);
    const end = await ended;
    expect(end, stderr).toEqual({ code: null, signal });
    // The verifier got SIGTERM with cordon's exit (sleep ends on it at once).
    expect(await waitFor(() => !alive(verifierPid), 3_000)).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
