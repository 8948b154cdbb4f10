import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, REPO_ROOT, runCordon, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { parseFastCheckArgs } from '../../src/fast/check.js';

// `cordon check [--repo PATH] [--json]` runs without oclif (src/fast/check.ts); every other form,
// and every refusal, goes through the oclif command. Both routes must answer byte for byte alike:
// each scenario runs once on the fast route and once with CORDON_NO_FAST_ROUTE=1.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-fast-check-');
});
afterEach(() => sandbox.cleanup());

const newRepo = (files: Record<string, string> = { 'src/app.py': 'print("hello")\n', 'README.md': '# demo\n' }) => makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), files, sandbox.env);

/** The same check on both routes; `check` checks the repository state is the same afterwards too. */
async function bothRoutes(args: string[], cwd: string): Promise<{ fast: RunResult; oclif: RunResult }> {
  const fast = await runCordon(args, { env: sandbox.env, cwd });
  const oclif = await runCordon(args, { env: { ...sandbox.env, CORDON_NO_FAST_ROUTE: '1' }, cwd });
  return { fast, oclif };
}

const same = ({ fast, oclif }: { fast: RunResult; oclif: RunResult }) => {
  expect({ exitCode: fast.exitCode, stdout: fast.stdout, stderr: fast.stderr }).toEqual({ exitCode: oclif.exitCode, stdout: oclif.stdout, stderr: oclif.stderr });
};

describe('parseFastCheckArgs: only the plain form takes the fast route', () => {
  it.each([
    [[], { json: false }],
    [['--json'], { json: true }],
    [['--repo', '/r'], { repo: '/r', json: false }],
    [['--repo=/r', '--json'], { repo: '/r', json: true }],
    [['--json', '--repo', 'a b'], { repo: 'a b', json: true }],
  ])('%j → %j', (args, expected) => {
    expect(parseFastCheckArgs(args)).toEqual(expected);
  });

  it.each([[['--base', 'main']], [['--help']], [['-h']], [['--json', '--json']], [['--repo']], [['--repo', '--json']], [['--repo=']], [['--repo', 'a', '--repo', 'b']], [['extra']], [['--allow', 'src/**']], [['--head', 'x']]])('%j → oclif', (args) => {
    expect(parseFastCheckArgs(args)).toBeUndefined();
  });
});

describe('cordon check: the fast route answers exactly as the oclif command', () => {
  it('accepted and rejected, human and --json, with --repo in every position', async () => {
    const repo = newRepo();
    expect((await runCordon(['arm', 'fast', '--allow', 'src/**', '--max-added-lines', '3'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/app.py': 'print("bye")\n' });
    const accepted = await bothRoutes(['check'], repo);
    expect(accepted.fast.exitCode).toBe(0);
    expect(accepted.fast.stdout).toMatch(/^accepted: 1 changed file inside the envelope/);
    same(accepted);
    same(await bothRoutes(['check', '--json'], repo));
    writeFiles(repo, { 'src/more.py': '1\n2\n3\n4\n', 'notes.txt': 'x\n' });
    const rejected = await bothRoutes(['check', '--json'], repo);
    expect(rejected.fast.exitCode).toBe(3);
    expect(JSON.parse(rejected.fast.stdout).violations.map((v: { code: string }) => v.code)).toEqual(['path_outside_policy', 'max_added_lines_exceeded']);
    same(rejected);
    same(await bothRoutes(['check'], repo));
    const elsewhere = sandbox.dir('elsewhere');
    same(await bothRoutes(['check', '--repo', repo], elsewhere));
    same(await bothRoutes(['check', `--repo=${repo}`, '--json'], elsewhere));
    same(await bothRoutes(['--repo', repo, 'check'], elsewhere));
  });

  it('refusals (nothing armed, outside a repository) fall back to the oclif command, exit 2', async () => {
    const repo = newRepo();
    const unarmed = await bothRoutes(['check'], repo);
    expect(unarmed.fast.exitCode).toBe(2);
    same(unarmed);
    same(await bothRoutes(['check', '--json'], repo));
    const outside = await bothRoutes(['check', '--json'], sandbox.dir('not-a-repo'));
    expect(outside.fast.exitCode).toBe(2);
    same(outside);
    // Named with --repo: the path as typed, and no advice to use --repo (both routes, both forms).
    sandbox.dir('not-a-repo');
    const named = await bothRoutes(['check', '--repo', 'not-a-repo'], sandbox.root);
    expect(named.fast.stderr.split('\n')[0]).toMatch(/^ {4}Error: --repo "not-a-repo" is not inside a git work tree \(git: fatal: not a git repository.*\)$/);
    same(named);
    same(await bothRoutes(['check', '--repo=not-a-repo', '--json'], sandbox.root));
    same(await bothRoutes(['--repo', 'not-a-repo', 'check'], sandbox.root));
  });

  it("an installed plugin's audit tap runs on the fast route too, loaded through the plugin index", async () => {
    const root = sandbox.dir('plugin-auditor');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'auditor', version: '0.0.0', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index.js', identifier: 'register' } } } }));
    writeFileSync(
      join(root, 'index.js'),
      "export async function register() { return { name: 'auditor', apply(api) { api.hooks.audit.tap('no-scratch', (ctx) => { if (ctx.changedPaths.includes('scratch.txt')) ctx.violations.push({ code: 'scratch_file', message: 'no scratch files' }); }); } }; }\n",
    );
    linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/claude-code', root: join(REPO_ROOT, 'plugins/claude-code') }, { name: 'auditor', root }]);
    const repo = newRepo();
    expect((await runCordon(['arm', 'tap', '--allow', '**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'scratch.txt': 'later\n' });
    for (let round = 0; round < 2; round++) {
      // Round 0 has no plugin index yet (everything loads and the index is written); round 1 uses it.
      const r = await bothRoutes(['check', '--json'], repo);
      expect(r.fast.exitCode).toBe(3);
      expect(JSON.parse(r.fast.stdout).violations).toEqual([{ code: 'scratch_file', message: 'no scratch files' }]);
      same(r);
    }
    const index = JSON.parse(readFileSync(join(sandbox.cacheDir, 'plugin-index.json'), 'utf8'));
    expect(index.packages.find((p: { name: string }) => p.name === 'auditor').taps).toEqual(['audit']);
  });
});

describe('cordon check fast route: what it loads', () => {
  it('on a small repository, neither node:crypto (its envelope hashes and random names come from @noble/hashes and /dev/urandom) nor node:v8, nor child_process and the stream and socket modules, nor node:os and fs recursive removal', async () => {
    const repo = newRepo();
    expect((await runCordon(['arm', 'mods', '--allow', '**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/app.py': 'print("changed")\n', 'new.txt': 'new\n' });
    const out = join(sandbox.dir('module-probe'), 'modules.txt');
    const probe = join(sandbox.dir('module-probe'), 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    const r = await runCordon(['check', '--json'], { env: { ...sandbox.env, NODE_OPTIONS: `--require ${probe}` }, cwd: repo });
    expect(r.exitCode, r.stderr).toBe(0);
    // It was the fast route that ran: a lock was taken, the verdict saved and hashed state re-read.
    expect(JSON.parse(r.stdout)).toMatchObject({ passed: true, metrics: { files: 2 } });
    const modules = readFileSync(out, 'utf8').split('\n');
    // git started through libuv's process and pipe handles (src/process/direct-spawn.ts), the
    // verdict written to the descriptor (writeOutput of @cordon/plugin-api): no child_process, net, stream
    // or tty modules, which cost a check several ms.
    expect(modules).toContain('Internal Binding process_wrap');
    expect(modules).toContain('Internal Binding pipe_wrap');
    expect(modules.filter((m) => /^NativeModule (crypto|v8|internal\/crypto\/|child_process$|net$|dgram$|tty$|stream$|internal\/streams\/(readable|writable|duplex)$)/.test(m))).toEqual([]);
    // Nor node:os (the temp directory and host name come from the environment and the os
    // binding) nor fs's recursive removal (the private git directory is removed entry by entry).
    expect(modules.filter((m) => /^NativeModule (os|internal\/fs\/rimraf)$/.test(m))).toEqual([]);
    // A second check reads the state the first one wrote (its SHA-256 checks pass).
    expect((await runCordon(['check', '--json'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
  });
});
