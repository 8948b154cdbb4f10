import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, REPO_ROOT, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { hookPayload } from '../../../../test/support/fixtures.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { resolvePaths } from '../../src/util/paths.js';
import { tapPlugin } from './support.js';

// bin/run.cjs compiles the hook and fast-check bundles, and for the hook the dialect plugin's register
// bundle, through a V8 code cache in Cordon's cache directory (loadBundle, requireCached). The cache
// must be written once, then used, survive garbage, live where resolvePaths() says the cache
// directory is, and never change what the commands print.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-code-cache-');
  // No session sampler: the hook would start one that keeps writing into the data directory
  // while the sandbox is removed (ENOTEMPTY); these tests are about the code caches only.
  sandbox.env.CORDON_SAMPLER = 'off';
});
afterEach(() => sandbox.cleanup());

const payload = readFileSync(hookPayload('claude-code.PreToolUse.Bash'), 'utf8');
const CLAUDE_PLUGIN = { name: '@cordon/claude-code', root: join(REPO_ROOT, 'plugins', 'claude-code') };
/** Whether this Node lends its `v8` binding through process.binding (20, 22): then every check runs with --no-opt (bin/run.cjs). */
const V8_BINDING = spawnSync(process.execPath, ['-e', "try { process.binding('v8').setFlagsFromString; console.log('yes') } catch { console.log('no') }"], { encoding: 'utf8' }).stdout.trim() === 'yes';
/** The name the check bundle's code cache files start with. */
const CHECK_CACHE = V8_BINDING ? 'no-opt-check.cjs' : 'check.cjs';
/** The code cache files of the fast routes' bundles (`arm`, through oclif, leaves @oclif/core's, `core-<version>.cjs-…`, beside them). */
const cacheFiles = (cacheDir: string) => {
  const dir = join(cacheDir, 'code-cache');
  return existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith('core-')).map((name) => join(dir, name)) : [];
};

describe('the bundles run through a V8 code cache', () => {
  it('written by the first check, used unchanged by the next; garbage in it is replaced, output unchanged', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n' }, sandbox.env);
    expect((await runCordon(['arm', 'cache', '--allow', 'src/**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/app.py': 'y\n' });
    // A cache left by an older build of the bundle: replaced, not kept beside the new one.
    mkdirSync(join(sandbox.cacheDir, 'code-cache'), { recursive: true });
    writeFileSync(join(sandbox.cacheDir, 'code-cache', `${CHECK_CACHE}-1-1-1-${process.version}-${process.arch}.bin`), 'old');
    const first = await runCordon(['check'], { env: sandbox.env, cwd: repo });
    expect(first.exitCode).toBe(0);
    const [file, ...others] = cacheFiles(sandbox.cacheDir);
    expect(others).toEqual([]);
    expect(file).toMatch(new RegExp(`/${CHECK_CACHE.replace(/\./g, '\\.')}-\\d+-\\d+-\\d+-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.bin$`));
    const written = statSync(file!);

    const second = await runCordon(['check'], { env: sandbox.env, cwd: repo });
    expect({ ...second, durationMs: 0 }).toMatchObject({ exitCode: 0, stdout: first.stdout, stderr: first.stderr });
    // V8 took the cache: nothing was rewritten.
    expect(statSync(file!).mtimeMs).toBe(written.mtimeMs);

    writeFileSync(file!, 'not a code cache');
    const third = await runCordon(['check'], { env: sandbox.env, cwd: repo });
    expect({ exitCode: third.exitCode, stdout: third.stdout, stderr: third.stderr }).toEqual({ exitCode: 0, stdout: first.stdout, stderr: first.stderr });
    expect(readFileSync(file!, 'latin1')).not.toBe('not a code cache');
    expect(statSync(file!).size).toBeGreaterThan(10_000);

    // Off: plain require, nothing written.
    const plain = await runCordon(['check'], { env: { ...sandbox.env, CORDON_CODE_CACHE: 'off', CORDON_CACHE_DIR: sandbox.dir('other-cache') }, cwd: repo });
    expect(plain.stdout).toBe(first.stdout);
    expect(cacheFiles(join(sandbox.root, 'other-cache'))).toEqual([]);
  });

  it('the hook keeps its own cache and stays silent; the cache directory is resolvePaths().cacheDir', async () => {
    const env = { ...sandbox.env };
    delete env.CORDON_CACHE_DIR; // XDG_CACHE_HOME decides, as it does for the plugin index
    linkPluginRoots(sandbox.dataDir, [CLAUDE_PLUGIN]);
    const first = await runCordon(['hook', '--agent', 'claude-code'], { env, input: payload });
    const second = await runCordon(['hook', '--agent', 'claude-code'], { env, input: payload });
    for (const run of [first, second]) expect({ exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const files = cacheFiles(resolvePaths(env).cacheDir).map((f) => f.split('/').pop()!);
    // The dialect plugin's register bundle has its own cache, named after its package.
    expect(files.sort()).toEqual([expect.stringMatching(/^_cordon_claude-code-register\.cjs-\d+-\d+-\d+-v[\d.]+-\w+\.bin$/), expect.stringMatching(/^hook\.cjs-/)]);
  });

  it("the dialect plugin's register bundle loads from its cache: written once, then used; a garbage cache is replaced", async () => {
    linkPluginRoots(sandbox.dataDir, [CLAUDE_PLUGIN]);
    const run = async (): Promise<void> => {
      const r = await runCordon(['hook', '--agent', 'claude-code'], { env: sandbox.env, input: payload });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    };
    const pluginCache = (): string => cacheFiles(sandbox.cacheDir).find((f) => f.split('/').pop()!.startsWith('_cordon_claude-code-register.cjs-'))!;
    // The first call after the plugin set changed loads every plugin on the bus thread (no plugin
    // index yet: hot/main.ts), which compiles without the cache; the calls after it are ordinary.
    await run();
    await run();
    const file = pluginCache();
    const written = statSync(file).mtimeMs;
    await run();
    expect(statSync(file).mtimeMs).toBe(written);
    writeFileSync(file, 'not a code cache');
    await run();
    expect(readFileSync(file).toString()).not.toBe('not a code cache');
    // Every call still recorded its marker through the plugin's dialect.
    const markers = readMarkers(join(sessionDir(sandbox.dataDir, JSON.parse(payload).session_id), 'markers.jsonl')).markers;
    expect(markers).toHaveLength(4);
  });

  /** A CommonJS plugin tapping `audit` (check loads it) and `enforce` (control run loads it); it answers neither, so the check passes and the command runs unguarded. */
  const bothTaps = (): void => {
    const root = sandbox.dir('plugin-both');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'both-taps', version: '0.0.0', oclif: { hooks: { 'cordon:register': { target: './register.cjs', identifier: 'register' } } } }));
    writeFileSync(
      join(root, 'register.cjs'),
      "exports.register = async () => ({ name: 'both-taps', apply(api) { api.hooks.audit.tapPromise({ name: 'audit' }, async () => {}); api.hooks.enforce.tapPromise({ name: 'enforce' }, async () => undefined); } });\n",
    );
    linkPluginRoots(sandbox.dataDir, [{ name: 'both-taps', root }]);
  };

  /** Runs check then control run twice in `repo`; returns the plugin's cache files after the first pair, asserting the second pair used them as they were. */
  const checkThenControl = async (repo: string): Promise<string[]> => {
    const check = async (): Promise<void> => expect((await runCordon(['check'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    const control = async (): Promise<void> => expect((await runCordon(['control', 'run', '--', 'true'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    const caches = () => cacheFiles(sandbox.cacheDir).filter((f) => /both-taps|register\.cjs/.test(f.split('/').pop()!));
    await check();
    await control();
    const files = caches();
    const written = files.map((f) => statSync(f).mtimeMs);
    await check();
    await control();
    // V8 took each cache: none was replaced by the other route's.
    expect(caches()).toEqual(files);
    expect(files.map((f) => statSync(f).mtimeMs)).toEqual(written);
    return files.map((f) => f.split('/').pop()!).sort();
  };

  it('check on a small repository runs with --no-opt where Node lends its v8 binding (20, 22), with caches of its own; elsewhere it shares one cache of a plugin with control run', async () => {
    bothTaps();
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n' }, sandbox.env);
    expect((await runCordon(['arm', 'cache', '--allow', 'src/**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    const plain = expect.stringMatching(/^both-taps-register\.cjs-\d+-/);
    const noOpt = expect.stringMatching(/^no-opt-both-taps-register\.cjs-\d+-/);
    expect(await checkThenControl(repo)).toEqual(V8_BINDING ? [plain, noOpt] : [plain]);
    const checkCache = V8_BINDING ? /^no-opt-check\.cjs-\d+-/ : /^check\.cjs-\d+-/;
    expect(cacheFiles(sandbox.cacheDir).map((f) => f.split('/').pop()!).filter((f) => f.includes('check.cjs'))).toEqual([expect.stringMatching(checkCache)]);
    // And TurboFan compiled nothing (on this 2-file repository it would compile little anyway;
    // at 20 files it compiled SHA-256's block function among others, bench:envelope).
    if (V8_BINDING) {
      const traced = spawnSync(process.execPath, ['--trace-opt', join(REPO_ROOT, 'packages/host/bin/run.cjs'), 'check'], { cwd: repo, env: sandbox.env, encoding: 'utf8' });
      expect(traced.status).toBe(0);
      expect(traced.stdout.split('\n').filter((line) => line.includes('completed optimizing'))).toEqual([]);
    }
  });

  it('check on a repository whose index is 4 MiB or more runs with --no-opt and keeps caches of its own; control run keeps its', async () => {
    bothTaps();
    // 1,100 tracked files under one 3,800-byte directory path: an index of about 4.3 MB.
    const deep = Array.from({ length: 19 }, (_, i) => `${String(i).padStart(2, '0')}${'d'.repeat(198)}`).join('/');
    const files: Record<string, string> = {};
    for (let i = 0; i < 1100; i++) files[`src/${deep}/f${i}.txt`] = `${i}\n`;
    const repo = makeRepo(sandbox.dir('repo'), files, sandbox.env);
    expect(statSync(join(repo, '.git', 'index')).size).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    expect((await runCordon(['arm', 'cache', '--allow', 'src/**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    expect(await checkThenControl(repo)).toEqual([expect.stringMatching(/^both-taps-register\.cjs-\d+-/), expect.stringMatching(/^no-opt-both-taps-register\.cjs-\d+-/)]);
    expect(cacheFiles(sandbox.cacheDir).map((f) => f.split('/').pop()!).filter((f) => f.includes('check.cjs'))).toEqual([expect.stringMatching(/^no-opt-check\.cjs-\d+-/)]);
  });

  it('a run whose plugin work ran on the bus thread leaves a partial cache, which the next ordinary run replaces', async () => {
    const agent = CLAUDE_PLUGIN;
    const tapper = tapPlugin(sandbox.dir('plugin-tapper'), 'tapper', 'async () => undefined');
    // The hook bundle's caches (the plugin's register bundle has its own, see the test above).
    const names = () => cacheFiles(sandbox.cacheDir).map((f) => f.split('/').pop()!).filter((f) => f.startsWith('hook.cjs-'));
    // A plugin taps beforeToolCall: the plugin work runs on the thread, the main thread compiles less.
    linkPluginRoots(sandbox.dataDir, [agent, tapper]);
    for (let i = 0; i < 2; i++) expect((await runCordon(['hook', '--agent', 'claude-code'], { env: sandbox.env, input: payload })).exitCode).toBe(0);
    expect(names()).toEqual([expect.stringMatching(/^hook\.cjs-.*-partial\.bin$/)]);
    // Without it, the main thread does everything and writes the full cache, which replaces the
    // partial one: from the second call on, since the first after the plugin set changed loads the
    // plugins on the thread (no plugin index yet: hot/main.ts).
    linkPluginRoots(sandbox.dataDir, [agent]);
    for (let i = 0; i < 2; i++) expect((await runCordon(['hook', '--agent', 'claude-code'], { env: sandbox.env, input: payload })).exitCode).toBe(0);
    const [full, ...rest] = names();
    expect(rest).toEqual([]);
    expect(full).toMatch(/^hook\.cjs-.*\.bin$/);
    expect(full).not.toContain('partial');
    const written = statSync(join(sandbox.cacheDir, 'code-cache', full!)).mtimeMs;
    expect((await runCordon(['hook', '--agent', 'claude-code'], { env: sandbox.env, input: payload })).exitCode).toBe(0);
    expect(statSync(join(sandbox.cacheDir, 'code-cache', full!)).mtimeMs).toBe(written);
  });

  it("writing a cache removes this Node's caches of older builds of the bundle, keeps another Node version's for a month", async () => {
    const dir = join(sandbox.cacheDir, 'code-cache');
    mkdirSync(dir, { recursive: true });
    const runtime = `${process.version}-${process.arch}`;
    const names = {
      olderBuild: `fast.cjs-100-1700000000000-42-${runtime}.bin`,
      olderPartial: `fast.cjs-100-1700000000000-42-${runtime}-partial.bin`,
      otherNode: `fast.cjs-100-1700000000000-42-v99.1.0-${process.arch}.bin`,
      otherArch: `fast.cjs-100-1700000000000-42-${process.version}-s390x.bin`,
      otherNodeUnused: `fast.cjs-100-1700000000000-42-v98.0.0-${process.arch}.bin`,
      otherBundle: `hook.cjs-100-1700000000000-42-${runtime}.bin`,
    };
    for (const name of Object.values(names)) writeFileSync(join(dir, name), 'not a cache');
    const old = new Date(Date.now() - 31 * 24 * 3600 * 1000);
    utimesSync(join(dir, names.otherNodeUnused), old, old);
    expect((await runCordon(['control', 'run', '--', 'true'], { env: sandbox.env, cwd: sandbox.root })).exitCode).toBe(0);
    const left = readdirSync(dir).sort();
    expect(left.filter((name) => name.startsWith('fast.cjs-') && name.endsWith(`${runtime}.bin`))).toHaveLength(1);
    expect(left).not.toContain(names.olderBuild);
    expect(left).not.toContain(names.olderPartial);
    expect(left).not.toContain(names.otherNodeUnused);
    expect(left).toEqual(expect.arrayContaining([names.otherNode, names.otherArch, names.otherBundle]));
  });

  it('a dozen plugins compiled without their caches (the first run after an install) write them all, and Node warns of no listener leak', async () => {
    const plugins = Array.from({ length: 12 }, (_, i) => {
      const root = sandbox.dir(`plugin-${i}`);
      const name = `auditor-${i}`;
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name, version: '0.0.0', oclif: { hooks: { 'cordon:register': { target: './register.cjs', identifier: 'register' } } } }));
      writeFileSync(join(root, 'register.cjs'), `exports.register = async () => ({ name: '${name}', apply(api) { api.hooks.audit.tapPromise({ name: 'audit' }, async () => {}); } });\n`);
      return { name, root };
    });
    linkPluginRoots(sandbox.dataDir, plugins);
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n' }, sandbox.env);
    expect((await runCordon(['arm', 'many', '--allow', 'src/**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    rmSync(join(sandbox.cacheDir, 'code-cache'), { recursive: true, force: true });
    const run = await runCordon(['check'], { env: sandbox.env, cwd: repo });
    // Each cache used to add its own 'exit' listener: past ten, a MaxListenersExceededWarning on stderr.
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(cacheFiles(sandbox.cacheDir).filter((f) => /auditor-\d+-register\.cjs-/.test(f))).toHaveLength(12);
  });

  it('a register bundle with text outside ASCII (UTF-8) reads back exactly, from source and from its cache', async () => {
    // requireCached reads the file and its CommonJS wrapper into one buffer and decodes it once.
    const message = 'na\u00efve \u2014 \u4e2d\u6587 \u2713 \u{1f642}';
    const root = sandbox.dir('plugin-utf8');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'utf8-auditor', version: '0.0.0', oclif: { hooks: { 'cordon:register': { target: './register.cjs', identifier: 'register' } } } }));
    // The literal is written as UTF-8 bytes, not as escapes.
    writeFileSync(join(root, 'register.cjs'), `// ${message}\nexports.register = async () => ({ name: 'utf8-auditor', apply(api) { api.hooks.audit.tap('utf8', (ctx) => { ctx.violations.push({ code: 'utf8', message: '${message}' }); }); } });\n`);
    linkPluginRoots(sandbox.dataDir, [{ name: 'utf8-auditor', root }]);
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n' }, sandbox.env);
    expect((await runCordon(['arm', 'utf8', '--allow', '**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    for (let round = 0; round < 2; round++) {
      const run = await runCordon(['check', '--json'], { env: sandbox.env, cwd: repo });
      expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 3, stderr: '' });
      expect(JSON.parse(run.stdout).violations).toEqual([{ code: 'utf8', message }]);
      // The first round compiled it from source and wrote its cache; the second compiled from that cache.
      expect(cacheFiles(sandbox.cacheDir).filter((f) => /utf8-auditor-register\.cjs-/.test(f))).toHaveLength(1);
    }
  });

  it("a bundle's lazy modules still load, silently: an audit tap that opens the ledger", async () => {
    const root = sandbox.dir('plugin-ledger-auditor');
    const db = join(sandbox.root, 'ledger.sqlite3');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'ledger-auditor', version: '0.0.0', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index.js', identifier: 'register' } } } }));
    writeFileSync(
      join(root, 'index.js'),
      `export async function register() { return { name: 'ledger-auditor', apply(api) { api.hooks.audit.tapPromise('ledger', async (ctx) => { const ledger = await api.services.ledger.open({ db: ${JSON.stringify(db)} }); ctx.violations.push({ code: 'ledger_opened', message: 'opened ' + (ledger.path === ${JSON.stringify(db)}) }); await ledger.close(); }); } }; }\n`,
    );
    linkPluginRoots(sandbox.dataDir, [{ name: 'ledger-auditor', root }]);
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n' }, sandbox.env);
    expect((await runCordon(['arm', 'ledger', '--allow', '**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    for (let round = 0; round < 2; round++) {
      const run = await runCordon(['check', '--json'], { env: sandbox.env, cwd: repo });
      expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 3, stderr: '' });
      expect(JSON.parse(run.stdout).violations).toEqual([{ code: 'ledger_opened', message: 'opened true' }]);
    }
    // The ledger service came from its own bundle, through the code cache like the check's.
    expect(cacheNames()).toEqual(V8_BINDING ? ['no-opt-check.cjs', 'no-opt-host-services.cjs'] : ['check.cjs', 'host-services.cjs']);
    expect(existsSync(db)).toBe(true);
  });

  /** The bundle names of the code cache files (`<name>-<size>-<mtime>-…`), sorted. */
  const cacheNames = (): string[] => cacheFiles(sandbox.cacheDir).map((f) => /^(.*?)-\d+-/.exec(f.split('/').pop()!)![1]!).sort();

  it("control run's bundle leaves the services to their own, loaded on first use: an enforce tap that uses both", async () => {
    const root = sandbox.dir('plugin-services-enforcer');
    const out = join(sandbox.root, 'services.json');
    const db = join(sandbox.root, 'ledger.sqlite3');
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'services-enforcer', version: '0.0.0', oclif: { hooks: { 'cordon:register': { target: './register.cjs', identifier: 'register' } } } }));
    writeFileSync(
      join(root, 'register.cjs'),
      `const { writeFileSync } = require('node:fs');\nexports.register = async () => ({ name: 'services-enforcer', apply(api) { api.hooks.enforce.tapPromise('services', async () => { writeFileSync(${JSON.stringify(out)}, JSON.stringify({ frozen: Object.isFrozen(api.services), sessionDir: api.services.telemetry.sessionDir('s-1'), ledger: api.services.ledger.resolvePath({ db: ${JSON.stringify(db)} }), same: api.services.ledger === api.services.ledger })); return undefined; }); } });\n`,
    );
    linkPluginRoots(sandbox.dataDir, [{ name: 'services-enforcer', root }]);
    for (let round = 0; round < 2; round++) {
      rmSync(out, { force: true });
      const run = await runCordon(['control', 'run', '--', 'true'], { env: sandbox.env, cwd: sandbox.root });
      expect({ exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      const seen = JSON.parse(readFileSync(out, 'utf8'));
      expect(seen).toEqual({ frozen: true, sessionDir: sessionDir(sandbox.dataDir, 's-1'), ledger: db, same: true });
    }
    expect(cacheNames()).toEqual(['fast.cjs', 'host-services.cjs', 'services-enforcer-register.cjs']);
  });

  it('control run with a plugin that never touches the services loads no services bundle', async () => {
    bothTaps();
    expect((await runCordon(['control', 'run', '--', 'true'], { env: sandbox.env, cwd: sandbox.root })).exitCode).toBe(0);
    expect(cacheNames()).not.toContain('host-services.cjs');
    expect(cacheNames()).toContain('fast.cjs');
  });
});
