import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { parseFastStatusArgs } from '../../src/fast/status.js';

// `cordon status [--repo PATH] [--json]` runs without oclif (src/fast/status.ts); every other
// form, and every refusal, goes through the oclif command. Both routes must answer byte for byte
// alike: each scenario runs once on the fast route and once with CORDON_NO_FAST_ROUTE=1.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-fast-status-');
});
afterEach(() => sandbox.cleanup());

const newRepo = () => makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), { 'src/app.py': 'print("hello")\n' }, sandbox.env);

async function bothRoutes(args: string[], cwd: string, env: NodeJS.ProcessEnv = sandbox.env): Promise<{ fast: RunResult; oclif: RunResult }> {
  const fast = await runCordon(args, { env, cwd });
  const oclif = await runCordon(args, { env: { ...env, CORDON_NO_FAST_ROUTE: '1' }, cwd });
  return { fast, oclif };
}

const same = ({ fast, oclif }: { fast: RunResult; oclif: RunResult }) => {
  expect({ exitCode: fast.exitCode, stdout: fast.stdout, stderr: fast.stderr }).toEqual({ exitCode: oclif.exitCode, stdout: oclif.stdout, stderr: oclif.stderr });
};

describe('parseFastStatusArgs: only the plain form takes the fast route', () => {
  it.each([
    [[], { json: false }],
    [['--json'], { json: true }],
    [['--repo=/r', '--json'], { repo: '/r', json: true }],
  ])('%j → %j', (args, expected) => {
    expect(parseFastStatusArgs(args)).toEqual(expected);
  });

  it.each([[['--help']], [['-h']], [['--json', '--json']], [['--repo']], [['--repo=']], [['extra']], [['--jsn']]])('%j → oclif', (args) => {
    expect(parseFastStatusArgs(args)).toBeUndefined();
  });
});

describe('cordon status: the fast route answers exactly as the oclif command', () => {
  it('an armed envelope, before and after a check, human and --json, with --repo in every position', async () => {
    const repo = newRepo();
    // A label with characters a terminal must not see raw, and a percent sign format() would read.
    expect((await runCordon(['arm', 'fix 100%% \u001b[31mred', '--allow', 'src/**', '--verify', 'true'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    const armed = await bothRoutes(['status'], repo);
    expect(armed.fast.exitCode).toBe(0);
    expect(armed.fast.stdout).toMatch(/^phase: armed/);
    expect(armed.fast.stdout).not.toContain('\u001b');
    same(armed);
    same(await bothRoutes(['status', '--json'], repo));
    writeFiles(repo, { 'src/app.py': 'print("bye")\n' });
    expect((await runCordon(['check'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    const checked = await bothRoutes(['status', '--json'], repo);
    expect(JSON.parse(checked.fast.stdout)).toMatchObject({ phase: 'accepted', last_audit: { passed: true } });
    same(checked);
    same(await bothRoutes(['status'], repo));
    const elsewhere = sandbox.dir('elsewhere');
    same(await bothRoutes(['status', '--repo', repo], elsewhere));
    same(await bothRoutes(['status', `--repo=${repo}`, '--json'], elsewhere));
    same(await bothRoutes(['--repo', repo, 'status'], elsewhere));
  });

  it('several verifiers: one per line, in order, so a verifier holding `|` reads as one (both routes)', async () => {
    const repo = newRepo();
    const armed = await runCordon(['arm', 'v', '--allow', 'src/**', '--verify', 'sh -c "echo a | grep a"', '--verify', 'false', '--verify', 'true'], { env: sandbox.env, cwd: repo });
    expect(armed.exitCode, armed.stderr).toBe(0);
    const shown = await bothRoutes(['status'], repo);
    same(shown);
    const lines = shown.fast.stdout.split('\n');
    const at = lines.indexOf('verify (3, run in order):');
    expect(at, shown.fast.stdout).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual(['  sh -c "echo a | grep a"', '  false', '  true']);
  });

  it('refusals (nothing armed, outside a repository, a damaged state, a refused directory variable) fall back to the oclif command, exit 2', async () => {
    const repo = newRepo();
    const unarmed = await bothRoutes(['status'], repo);
    expect(unarmed.fast.exitCode).toBe(2);
    same(unarmed);
    same(await bothRoutes(['status', '--json'], repo));
    const outside = await bothRoutes(['status', '--json'], sandbox.dir('not-a-repo'));
    expect(outside.fast.exitCode).toBe(2);
    same(outside);
    // Named with --repo: the path as typed, and no advice to use --repo (both routes, both forms).
    sandbox.dir('not-a-repo');
    const named = await bothRoutes(['status', '--repo', 'not-a-repo'], sandbox.root);
    expect(named.fast.stderr.split('\n')[0]).toMatch(/^ {4}Error: --repo "not-a-repo" is not inside a git work tree \(git: fatal: not a git repository.*\)$/);
    same(named);
    same(await bothRoutes(['status', '--repo=not-a-repo', '--json'], sandbox.root));
    same(await bothRoutes(['--repo', 'not-a-repo', 'status'], sandbox.root));
    expect((await runCordon(['arm', 'x', '--allow', '**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { '.cordon/state.json': '{"phase": "armed",' });
    const damaged = await bothRoutes(['status'], repo);
    expect(damaged.fast.exitCode).toBe(2);
    expect(damaged.fast.stderr).toContain('CORDON_BAD_STATE');
    same(damaged);
    const relative = await bothRoutes(['status', '--json'], repo, { ...sandbox.env, CORDON_CACHE_DIR: 'relative/cache' });
    expect(relative.fast.exitCode).toBe(2);
    same(relative);
  });

  it('a mistyped flag goes to oclif, which refuses it', async () => {
    const repo = newRepo();
    const r = await bothRoutes(['status', '--jsn'], repo);
    expect(r.fast.exitCode).toBe(2);
    same(r);
  });
});

describe('cordon status fast route: what it loads', () => {
  it('the plain form answers without @oclif/core; a refusal then loads it to print the error', async () => {
    const repo = newRepo();
    expect((await runCordon(['arm', 'mods', '--allow', '**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    const out = join(sandbox.dir('module-probe'), 'modules.json');
    const probe = join(sandbox.dir('module-probe'), 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const env = { ...sandbox.env, NODE_OPTIONS: `--require ${probe}` };
    const oclifLoaded = () => (JSON.parse(readFileSync(out, 'utf8')) as string[]).filter((p) => /@oclif|dist\/oclif\//.test(p));
    const r = await runCordon(['status', '--json'], { env, cwd: repo });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ phase: 'armed', label: 'mods' });
    expect(oclifLoaded()).toEqual([]);
    const refused = await runCordon(['status'], { env, cwd: sandbox.dir('not-a-repo') });
    expect(refused.exitCode).toBe(2);
    expect(oclifLoaded().length).toBeGreaterThan(0);
  });
});
