import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS, linkPluginRoots, linkPlugins, makeSandbox, REPO_ROOT, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';

// Files cordon keeps for itself (the plugin index and the envelope digests in its cache
// directory) and the package.json of a listed plugin are read on every hook call, check and
// `control run`. A FIFO in their place held each of those until something wrote to it: an
// agent's tool call hung on its hook. They are read non-blocking, regular files only
// (io/safe-read.ts), and a FIFO there reads as no file. Files that oclif or Node's module loader
// read with a blocking open (a listed plugin's package.json and oclif.manifest.json on the oclif
// route, its cordon:register module everywhere) are looked at first (io/safe-read.ts
// `blockingFileKind`): the plugin is not loaded, and said to be broken.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-special-state-')));
afterEach(() => box.cleanup());

const fifo = (path: string): void => {
  execFileSync('mkfifo', [path]);
};
const payload = JSON.stringify({ session_id: 'fifo-session', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, cwd: '/tmp' });
/** One that reads a FIFO waits until killed. */
const run = (args: string[], input?: string, cwd?: string) => runCordon(args, { env: box.env, timeoutMs: HANG_BOUND_MS, ...(input !== undefined ? { input } : {}), ...(cwd ? { cwd } : {}) });

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

  it('the guard settings (<config>/control.json, read by @cordon/cgroup-linux on every call): the hook stays silent and exits 0, control run runs', async () => {
    linkPlugins(box.dataDir, ['claude-code', 'cgroup-linux']);
    mkdirSync(box.configDir, { recursive: true });
    for (const make of [fifo, (file: string) => symlinkSync('/dev/zero', file)]) {
      const file = join(box.configDir, 'control.json');
      make(file);
      const hook = await run(['hook', '--agent', 'claude-code'], payload);
      expect({ exitCode: hook.exitCode, stdout: hook.stdout, stderr: hook.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      const control = await run(['control', 'run', '--', 'true']);
      expect([control.exitCode, control.stderr]).toEqual([0, '']);
      rmSync(file);
    }
    // The same file written by `control guard` still guards: the hook rewrites the call.
    writeFileSync(join(box.configDir, 'control.json'), JSON.stringify({ guard: { 'claude-code': true } }));
    const guarded = await run(['hook', '--agent', 'claude-code'], payload);
    expect(guarded.exitCode).toBe(0);
    expect(JSON.parse(guarded.stdout).hookSpecificOutput.updatedInput.command).toContain('control run --session fifo-session');
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

  it("a listed plugin's package.json: commands through oclif end, naming the plugin, and unlinking it mends them", async () => {
    const odd = box.dir('odd-plugin');
    fifo(join(odd, 'package.json'));
    linkPluginRoots(box.dataDir, [
      { name: '@cordon/claude-code', root: join(REPO_ROOT, 'plugins', 'claude-code') },
      { name: 'odd-plugin', root: odd },
    ]);
    const said = `warning: the plugin odd-plugin linked from ${odd} cannot be loaded: its package.json is not a regular file (a FIFO); cordon runs without any plugin ${join(box.dataDir, 'package.json')} lists until it is fixed; fix or restore that checkout, or unlink it: \`cordon plugins unlink odd-plugin\`\n`;
    const plugins = await run(['plugins']);
    expect([plugins.exitCode, plugins.stderr, plugins.stdout]).toEqual([0, said, 'No plugins installed.\n']);
    const status = await run(['status'], undefined, box.dir('not-a-repo'));
    expect([status.exitCode, status.stderr.startsWith(said)]).toEqual([2, true]);
    expect(status.stderr).toContain('CORDON_REPO_ERROR');
    // doctor reports it as a finding, not as a warning line.
    const doctor = await run(['doctor']);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.stderr).toBe('');
    expect(doctor.stdout).toContain('the plugin odd-plugin linked from');
    expect(doctor.stdout).toContain('its package.json is not a regular file (a FIFO)');
    const unlink = await run(['plugins', 'unlink', 'odd-plugin']);
    expect(unlink.exitCode, unlink.stderr).toBe(0);
    expect(readFileSync(join(box.dataDir, 'package.json'), 'utf8')).not.toContain('odd-plugin');
    const after = await run(['plugins']);
    expect([after.exitCode, after.stderr]).toEqual([0, '']);
    expect(after.stdout).toContain('@cordon/claude-code');
  }, 120_000);

  it("a listed plugin's oclif.manifest.json that never ends (/dev/zero) or is a FIFO: commands through oclif end", async () => {
    for (const [name, make] of [
      ['zero-plugin', (file: string) => symlinkSync('/dev/zero', file)],
      ['fifo-plugin', fifo],
    ] as const) {
      const odd = box.dir(name);
      writeFileSync(join(odd, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
      make(join(odd, 'oclif.manifest.json'));
      linkPluginRoots(box.dataDir, [{ name, root: odd }]);
      const kind = name === 'zero-plugin' ? 'a character device' : 'a FIFO';
      const plugins = await run(['plugins']);
      expect([name, plugins.exitCode, plugins.stdout]).toEqual([name, 0, 'No plugins installed.\n']);
      expect(plugins.stderr).toContain(`warning: the plugin ${name} linked from ${odd} cannot be loaded: its oclif.manifest.json is not a regular file (${kind})`);
    }
  }, 120_000);

  it("a listed plugin's cordon:register module: the hook stays silent and exits 0, the other plugins load, every command ends", async () => {
    const odd = box.dir('odd-plugin');
    mkdirSync(join(odd, 'dist'));
    writeFileSync(join(odd, 'package.json'), JSON.stringify({ name: 'odd-plugin', version: '1.0.0', oclif: { hooks: { 'cordon:register': { target: './dist/register.cjs', identifier: 'register' } } } }));
    fifo(join(odd, 'dist', 'register.cjs'));
    linkPluginRoots(box.dataDir, [
      { name: '@cordon/claude-code', root: join(REPO_ROOT, 'plugins', 'claude-code') },
      { name: 'odd-plugin', root: odd },
    ]);
    const hook = await run(['hook', '--agent', 'claude-code'], payload);
    expect({ exitCode: hook.exitCode, stdout: hook.stdout, stderr: hook.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const reduce = await run(['reduce', '--session', 'fifo-session', '--json']);
    expect(reduce.exitCode, reduce.stderr).toBe(0);
    expect(JSON.parse(reduce.stdout).sessions[0].agent).toBe('claude-code');
    expect(readFileSync(join(box.dataDir, 'logs', 'cordon.log'), 'utf8')).toContain(`its cordon:register module ${join(odd, 'dist', 'register.cjs')} is not a regular file (a FIFO)`);
    const control = await run(['control', 'run', '--', 'true']);
    expect(control.exitCode).toBe(0);
    expect(control.stderr).toContain('is not a regular file (a FIFO)');
    const repo = makeRepo(box.dir('repo'), { 'a.txt': 'a\n' }, box.env);
    // arm goes through oclif, check through its fast route.
    const arm = await run(['arm', 'fifo', '--allow', '**'], undefined, repo);
    expect(arm.exitCode, arm.stderr).toBe(0);
    expect(arm.stderr).toContain('its cordon:register module ./dist/register.cjs is not a regular file (a FIFO)');
    const check = await run(['check'], undefined, repo);
    expect([check.exitCode, check.stdout.startsWith('accepted')]).toEqual([0, true]);
  }, 120_000);

  it("a listed plugin's fast-command module (cordon.fastCommands): the command runs through oclif instead", async () => {
    const odd = box.dir('odd-fast');
    mkdirSync(join(odd, 'dist'));
    writeFileSync(join(odd, 'package.json'), JSON.stringify({ name: 'odd-fast', version: '1.0.0', cordon: { fastCommands: { module: './dist/fast.cjs', commands: ['pcodx', 'pcodx:show'] } } }));
    fifo(join(odd, 'dist', 'fast.cjs'));
    linkPluginRoots(box.dataDir, [
      { name: 'odd-fast', root: odd },
      { name: '@cordon/codex', root: join(REPO_ROOT, 'plugins', 'codex') },
    ]);
    const db = join(box.dir('ledger'), 'l.sqlite3');
    expect((await run(['pcodx', '--db', db, 'init'])).exitCode).toBe(0);
    const record = await run(['pcodx', '--db', db, 'record', '--role', 'user', '--text', 'hello']);
    expect(record.exitCode, record.stderr).toBe(0);
    const show = await run(['pcodx', '--db', db, 'show']);
    expect([show.exitCode, show.stderr, show.stdout]).toEqual([0, '', 'hello\n<aboveturn id="msg1"/>\n']);
  }, 120_000);
});
