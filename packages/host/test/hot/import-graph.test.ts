import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { checkBundleOptions, controlRunBundleOptions, hookBundleOptions, ledgerApiBundleOptions, picomatchBundleOptions, pluginCommandBundleOptions, reduceBundleOptions, servicesBundleOptions, statusBundleOptions } from '../../scripts/bundle-hot.mjs';
import { bundleFiles } from '../../../../scripts/bundle-options.mjs';
import { fastCommandBundleOptions, registerBundleOptions } from '../../../../scripts/bundle-register.mjs';
import { REPO } from './support.js';

// What the hook process loads on every tool call (the hot-path measurements in docs/hooks.md: importing
// @oclif/core alone costs more than 100 ms): bin/run.cjs requires the hook bundle, which requires
// nothing but Node's built-in modules, and the dialect plugins' register bundles, likewise.
// Both bundles must be what `npm run build` would write from the current dist/ (not stale).

const DIALECT_PLUGINS = ['claude-code', 'codex', 'gemini', 'cursor', 'hermes'];
const REQUIRE = /\brequire\("([^"]+)"\)/g;
const DYNAMIC_IMPORT = /\bimport\("([^"]+)"\)/g;

/** Specifiers a CommonJS bundle loads, split into Node built-ins and the rest. */
function loads(file: string): { builtins: string[]; other: string[]; dynamic: string[] } {
  const text = readFileSync(file, 'utf8');
  const required = [...text.matchAll(REQUIRE)].map((m) => m[1]!);
  return {
    builtins: required.filter((s) => s.startsWith('node:')),
    other: required.filter((s) => !s.startsWith('node:')),
    dynamic: [...text.matchAll(DYNAMIC_IMPORT)].map((m) => m[1]!),
  };
}

/** Rebuilds a bundle in memory and returns its JavaScript text. */
/** The bundle text `npm run build` writes for `options`. */
async function rebuilt(options: Record<string, unknown>): Promise<string> {
  const files = await bundleFiles(options);
  return [...files].find(([path]) => path.endsWith('.cjs'))![1];
}

describe('the hook path', () => {
  it('bin/run.cjs sends `cordon hook` to the hook bundle before anything loads @oclif/core', () => {
    const bin = readFileSync(join(REPO, 'packages/host/bin/run.cjs'), 'utf8');
    expect(bin).toMatch(/argv\[0\] === 'hook'[\s\S]*hook\(argv\.slice\(1\)\)[\s\S]*else[\s\S]*oclif\(argv\)/);
    expect(bin.slice(bin.indexOf('function hook('), bin.indexOf('function oclif('))).not.toContain('@oclif');
    expect(bin).toContain("loadBundle('../dist/hot/hook.cjs')");
  });

  it('the hook bundle loads only Node built-ins; the ledger and the /proc reader stay lazy modules of dist/', () => {
    const bundle = join(REPO, 'packages/host/dist/hot/hook.cjs');
    const { builtins, other, dynamic } = loads(bundle);
    expect(other).toEqual([]);
    expect(builtins).toContain('node:fs');
    expect(builtins).not.toContain('node:child_process'); // loaded only when a sampler is spawned
    expect(dynamic.sort()).toEqual(['../telemetry/sampler/linux/index.js']);
    for (const spec of dynamic) expect(readFileSync(resolve(dirname(bundle), spec), 'utf8')).toContain('export');
  });

  it('the hook, check and control run bundles leave the ledger and telemetry services to dist/bus/services.cjs, which is fresh and imports the ledger lazily', async () => {
    const inputs = async (options: Record<string, unknown>) => Object.keys((await build({ ...options, write: false, metafile: true })).metafile!.inputs);
    for (const options of [hookBundleOptions, checkBundleOptions, controlRunBundleOptions]) {
      const outfile = options.outfile as string;
      expect((await inputs(options)).filter((p) => /dist\/(ledger\/service|telemetry\/service|bus\/services)\.js$/.test(p)), outfile).toEqual([]);
      expect(readFileSync(outfile, 'utf8'), outfile).toContain('"host-services.cjs"');
      expect(readFileSync(outfile, 'utf8'), outfile).toBe(await rebuilt(options));
    }
    // control run's bundle no longer carries @noble/hashes either (the telemetry service's session directories need it).
    expect((await inputs(controlRunBundleOptions)).filter((p) => p.includes('@noble/hashes'))).toEqual([]);
    const services = join(REPO, 'packages/host/dist/bus/services.cjs');
    expect(readFileSync(services, 'utf8')).toBe(await rebuilt(servicesBundleOptions));
    const { other, dynamic } = loads(services);
    expect(other).toEqual([]);
    expect(dynamic).toEqual(['../ledger/ledger.js']);
    expect(existsSync(resolve(dirname(services), '../ledger/ledger.js'))).toBe(true);
  });

  it('the hook bundle is what the build writes from the current dist/ (not stale)', async () => {
    expect(readFileSync(join(REPO, 'packages/host/dist/hot/hook.cjs'), 'utf8')).toBe(await rebuilt(hookBundleOptions));
  });

  it('the plain `cordon check` goes to its own bundle, which loads no @oclif package and is fresh', async () => {
    const bin = readFileSync(join(REPO, 'packages/host/bin/run.cjs'), 'utf8');
    expect(bin).toMatch(/argv\[0\] === 'check'[\s\S]*check\(argv\)/);
    expect(bin).toMatch(/envelopeRoute\(args, 'check', prefix\)/);
    expect(bin).toContain('loadBundle(`../dist/fast/${file}`, prefix)');
    const bundle = join(REPO, 'packages/host/dist/fast/check.cjs');
    expect(loads(bundle).other.filter((p) => p.startsWith('@oclif/'))).toEqual([]);
    expect(readFileSync(bundle, 'utf8')).toBe(await rebuilt(checkBundleOptions));
  });

  it('the plain `cordon status` goes to its own bundle: Node built-ins only, no plugin host or services, nothing imported later, and fresh', async () => {
    const bin = readFileSync(join(REPO, 'packages/host/bin/run.cjs'), 'utf8');
    expect(bin).toMatch(/argv\[0\] === 'status'[\s\S]*status\(argv\)/);
    expect(bin).toMatch(/envelopeRoute\(args, 'status'\)/);
    const bundle = join(REPO, 'packages/host/dist/fast/status.cjs');
    expect(loads(bundle)).toEqual({ builtins: expect.any(Array), other: [], dynamic: [] });
    const inputs = Object.keys((await build({ ...(statusBundleOptions as Record<string, unknown>), write: false, metafile: true })).metafile!.inputs);
    // status fires no hook: neither the plugin host and tapable nor the ledger and telemetry services.
    expect(inputs.filter((p) => /dist\/bus\/|node_modules\/tapable\//.test(p))).toEqual([]);
    expect(readFileSync(bundle, 'utf8')).toBe(await rebuilt(statusBundleOptions));
  });

  it('the plain `cordon reduce` goes to its own bundle: no oclif, kysely or pg at start (only lazy modules of dist/), and fresh', async () => {
    const bin = readFileSync(join(REPO, 'packages/host/bin/run.cjs'), 'utf8');
    expect(bin).toMatch(/argv\[0\] === 'reduce'[\s\S]*reduce\(argv\)/);
    expect(bin).toContain("loadBundle('../dist/fast/reduce.cjs')");
    const bundle = join(REPO, 'packages/host/dist/fast/reduce.cjs');
    const { other, dynamic } = loads(bundle);
    // better-sqlite3's JavaScript is inlined: what is left are Node's modules under their bare names.
    expect(other.filter((p) => !['fs', 'path', 'util'].includes(p))).toEqual([]);
    expect(dynamic.sort()).toEqual(['../telemetry/reduce/db/open.js', '../telemetry/reduce/db/store.js', '../telemetry/reduce/db/target.js']);
    for (const spec of dynamic) expect(readFileSync(resolve(dirname(bundle), spec), 'utf8')).toContain('export');
    expect(readFileSync(bundle, 'utf8')).toBe(await rebuilt(reduceBundleOptions));
  });

  it('`cordon pcodx …` goes to the plugin-command bundle, which loads no ledger code; the ledger api bundle inlines kysely and better-sqlite3 (nothing to import()); both fresh', async () => {
    const bin = readFileSync(join(REPO, 'packages/host/bin/run.cjs'), 'utf8');
    expect(bin).toMatch(/argv\[0\] === 'pcodx'[\s\S]*pluginCommand\(argv\)/);
    expect(bin).toContain("loadBundle('../dist/fast/plugin-command.cjs')");
    const lookup = join(REPO, 'packages/host/dist/fast/plugin-command.cjs');
    expect(loads(lookup)).toEqual({ builtins: expect.any(Array), other: [], dynamic: [] });
    // Every pcodx command loads the lookup on its way to oclif: it stays small.
    expect(readFileSync(lookup, 'utf8').length).toBeLessThan(40_000);
    expect(readFileSync(lookup, 'utf8')).toBe(await rebuilt(pluginCommandBundleOptions));
    const api = join(REPO, 'packages/host/dist/fast/ledger-api.cjs');
    const { other, builtins, dynamic } = loads(api);
    expect(other.filter((p) => !['fs', 'path', 'util'].includes(p))).toEqual([]);
    // The ledger service's default loader; the fast route hands it the bundled Ledger instead.
    expect(dynamic).toEqual(['../ledger/ledger.js']);
    expect(builtins.filter((b) => ['node:crypto', 'node:module', 'node:os'].includes(b))).toEqual([]);
    // kysely's own classes are in it (the bundle is compact: no module path comments left).
    expect(readFileSync(api, 'utf8')).toMatch(/\bKysely=class\b[\s\S]*\bSqliteDialect=class\b|\bSqliteDialect=class\b[\s\S]*\bKysely=class\b/);
    expect(readFileSync(api, 'utf8')).toBe(await rebuilt(ledgerApiBundleOptions));
  });

  it('@cordon/codex: its fast command module is the one its package.json declares, loads only built-ins, and is fresh', async () => {
    const root = join(REPO, 'plugins/codex');
    const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pjson.cordon.fastCommands).toEqual({ module: './dist/pcodx/fast.cjs', commands: ['pcodx', 'pcodx:show', 'pcodx:ids', 'pcodx:turn'] });
    const options = fastCommandBundleOptions(root)!;
    const { other, dynamic } = loads(join(root, 'dist/pcodx/fast.cjs'));
    expect(other).toEqual([]);
    expect(dynamic).toEqual([]);
    expect(readFileSync(join(root, 'dist/pcodx/fast.cjs'), 'utf8')).toBe(await rebuilt(options));
  });

  it('the check bundle carries picomatch and shlex for lazyPackage (no module resolution on the check path); the hook bundle neither, it loads picomatch from its own fresh bundle beside it', async () => {
    const inputs = async (options: Record<string, unknown>) => Object.keys((await build({ ...options, write: false, metafile: true })).metafile!.inputs);
    const check = await inputs(checkBundleOptions);
    expect(check.filter((p) => /node_modules\/(picomatch\/lib\/picomatch|shlex\/shlex)\.js$/.test(p)).length).toBe(2);
    expect((await inputs(hookBundleOptions)).filter((p) => /node_modules\/(picomatch|shlex)\//.test(p))).toEqual([]);
    // A write judged by the live envelope: picomatch from dist/hot/picomatch.cjs through the code cache (requireCached).
    const hookText = readFileSync(join(REPO, 'packages/host/dist/hot/hook.cjs'), 'utf8');
    expect(hookText).toContain('var files={picomatch:"picomatch.cjs"};');
    const picomatchBundle = join(REPO, 'packages/host/dist/hot/picomatch.cjs');
    expect(readFileSync(picomatchBundle, 'utf8')).toBe(await rebuilt(picomatchBundleOptions));
    const { other } = loads(picomatchBundle);
    expect(other).toEqual([]);
  });

  // One character outside ASCII anywhere makes V8 keep a bundle as a two-byte string, slower to
  // read and compile on every start (scripts/bundle-options.mjs asciiComments).
  it('every bundle and bin/run.cjs (compiled from source on every call) is ASCII, and replacing its comments kept every line and column', async () => {
    const bundles = ['bin/run.cjs', 'dist/hot/hook.cjs', 'dist/hot/picomatch.cjs', 'dist/fast/check.cjs', 'dist/control/fast.cjs', 'dist/bus/services.cjs', 'dist/fast/reduce.cjs', 'dist/fast/plugin-command.cjs', 'dist/fast/ledger-api.cjs'].map((p) => join(REPO, 'packages/host', p));
    bundles.push(...DIALECT_PLUGINS.map((name) => join(REPO, 'plugins', name, 'dist/register.cjs')), join(REPO, 'plugins/codex/dist/pcodx/fast.cjs'));
    for (const file of bundles) expect(readFileSync(file, 'utf8'), file).toMatch(/^[\x00-\x7f]*$/);
    // The services bundle does carry comments with characters outside ASCII in its sources:
    // replaced one unit for one. (The bundles of the fast routes have none left: they are built
    // without comments.)
    const files = await bundleFiles(servicesBundleOptions);
    const js: string = [...files].find(([path]) => path.endsWith('.cjs'))![1];
    const raw = (await build({ ...(servicesBundleOptions as BuildOptions), write: false })).outputFiles!.find((f) => f.path.endsWith('.cjs'))!.text;
    expect(raw).toMatch(/[^\x00-\x7f]/);
    expect(js.length).toBe(raw.length);
    expect(js.split('\n').map((line) => line.length)).toEqual(raw.split('\n').map((line) => line.length));
  });

  it('the fast routes load node:crypto, node:os and node:module only when they need them', () => {
    for (const options of [hookBundleOptions, checkBundleOptions, controlRunBundleOptions]) {
      const { builtins } = loads(options.outfile as string);
      expect(builtins.filter((b) => ['node:crypto', 'node:module'].includes(b)), options.outfile as string).toEqual([]);
    }
    for (const options of [checkBundleOptions, controlRunBundleOptions]) expect(loads(options.outfile as string).builtins, options.outfile as string).not.toContain('node:os');
  });

  it('@cordon/cgroup-linux: its register bundle, which control run loads for every command, is fresh and loads node:os and node:timers/promises only when it needs them', async () => {
    const root = join(REPO, 'plugins', 'cgroup-linux');
    const { builtins, other, dynamic } = loads(join(root, 'dist/register.cjs'));
    expect(other).toEqual([]);
    expect(dynamic).toEqual([]);
    expect(builtins.filter((b) => ['node:os', 'node:timers/promises', 'node:child_process', 'node:crypto'].includes(b))).toEqual([]);
    expect(readFileSync(join(root, 'dist/register.cjs'), 'utf8')).toBe(await rebuilt(registerBundleOptions(root)));
  });

  it.each(DIALECT_PLUGINS)('@cordon/%s: its register bundle is the cordon:register target, loads only built-ins, and is fresh', async (name) => {
    const root = join(REPO, 'plugins', name);
    const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pjson.oclif.hooks['cordon:register']).toEqual({ target: './dist/register.cjs', identifier: 'register' });
    const { other, dynamic } = loads(join(root, 'dist/register.cjs'));
    expect(other).toEqual([]);
    expect(dynamic).toEqual([]);
    expect(readFileSync(join(root, 'dist/register.cjs'), 'utf8')).toBe(await rebuilt(registerBundleOptions(root)));
  });
});
