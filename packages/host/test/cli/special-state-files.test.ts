import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, linkPlugins, makeSandbox, REPO_ROOT, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';

// Files cordon keeps for itself (the plugin index and the envelope digests in its cache
// directory) and the package.json of a listed plugin are read on every hook call, check and
// `control run`. A FIFO in their place held each of those until something wrote to it: an
// agent's tool call hung on its hook. They are read non-blocking, regular files only
// (io/safe-read.ts), and a FIFO there reads as no file.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-special-state-')));
afterEach(() => box.cleanup());

const fifo = (path: string): void => {
  execFileSync('mkfifo', [path]);
};
const payload = JSON.stringify({ session_id: 'fifo-session', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: '/tmp' });
/** Each run gets 20 s: one that reads a FIFO waits until killed. */
const run = (args: string[], input?: string, cwd?: string) => runCordon(args, { env: box.env, timeoutMs: 20_000, ...(input !== undefined ? { input } : {}), ...(cwd ? { cwd } : {}) });

describe('a FIFO where cordon reads its own state', () => {
  it('the plugin index: the hook stays silent and exits 0, control run and check run', async () => {
    linkPlugins(box.dataDir, ['claude-code']);
    mkdirSync(box.cacheDir, { recursive: true });
    fifo(join(box.cacheDir, 'plugin-index.json'));
    const hook = await run(['hook', '--agent', 'claude-code'], payload);
    expect({ exitCode: hook.exitCode, stdout: hook.stdout, stderr: hook.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const control = await run(['control', 'run', '--', 'true']);
    expect([control.exitCode, control.stderr]).toEqual([0, '']);
    const repo = makeRepo(box.dir('repo'), { 'a.txt': 'a\n' }, box.env);
    expect((await run(['arm', 'fifo', '--allow', '**'], undefined, repo)).exitCode).toBe(0);
    const check = await run(['check'], undefined, repo);
    expect([check.exitCode, check.stderr]).toEqual([0, '']);
    expect(check.stdout).toMatch(/^accepted/);
  }, 90_000);

  it('the envelope digests: check runs', async () => {
    mkdirSync(box.cacheDir, { recursive: true });
    fifo(join(box.cacheDir, 'envelope-digests.json'));
    const repo = makeRepo(box.dir('repo'), { 'a.txt': 'a\n' }, box.env);
    expect((await run(['arm', 'fifo', '--allow', '**'], undefined, repo)).exitCode).toBe(0);
    for (const args of [['check'], ['check', '--json']]) {
      const check = await run(args, undefined, repo);
      expect([args, check.exitCode, check.stderr]).toEqual([args, 0, '']);
    }
  }, 90_000);

  it("a listed plugin's package.json: the hook stays silent and exits 0, control run runs, the other plugins still load", async () => {
    const odd = box.dir('odd-plugin');
    fifo(join(odd, 'package.json'));
    linkPluginRoots(box.dataDir, [
      { name: '@cordon/claude-code', root: join(REPO_ROOT, 'plugins', 'claude-code') },
      { name: 'odd-plugin', root: odd },
    ]);
    const hook = await run(['hook', '--agent', 'claude-code'], payload);
    expect({ exitCode: hook.exitCode, stdout: hook.stdout, stderr: hook.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const control = await run(['control', 'run', '--', 'true']);
    expect(control.exitCode).toBe(0);
    // The claude-code dialect still loaded: the hook recorded its marker.
    const reduce = await run(['reduce', '--session', 'fifo-session', '--json']);
    expect(reduce.exitCode, reduce.stderr).toBe(0);
    expect(JSON.parse(reduce.stdout).sessions[0].agent).toBe('claude-code');
  }, 90_000);
});
