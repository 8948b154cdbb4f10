import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { VENDORED_PLUGIN_API, vendoredPluginApiOptions } from '../../../../scripts/inline-plugin-api.mjs';
import { REPO_ROOT } from '../../../../test/support/cli.js';

// What an installed first-party plugin can load. `cordon plugins install` puts the package in
// `<data>/node_modules` with its `dependencies` and nothing else: no @cordon/plugin-api (a
// devDependency, not on the public registry), no @cordon/host. Every module the installed package
// exposes must therefore load with only Node's built-ins and the packages the plugin depends on.
// The bundles inline the plugin API (scripts/bundle-register.mjs), and every module tsc emitted
// imports the plugin's own copy of it (scripts/inline-plugin-api.mjs): oclif loads
// `dist/commands/**` one file at a time, unbundled.

const PLUGINS = readdirSync(join(REPO_ROOT, 'plugins')).filter((dir) => existsSync(join(REPO_ROOT, 'plugins', dir, 'package.json'))).sort();

interface PluginPackage {
  name: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  oclif?: { commands?: string; hooks?: Record<string, string | { target: string } | Array<string | { target: string }>> };
  cordon?: { fastCommands?: { module?: string } };
}

/** Every `.js`, `.cjs` and `.mjs` file under `dir`. */
function scripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? scripts(join(dir, e.name)) : /\.[cm]?js$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** The file paths a package.json `exports` value names (every condition but `types`). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => (key === 'types' ? [] : exportTargets(v)));
}

/**
 * The modules the installed package at `root` exposes to a loader other than a bundler: the oclif
 * commands (every file under `oclif.commands`, as oclif loads them), the `bin` files, the `exports`
 * targets, every oclif hook target and the fast command module. Absolute paths.
 */
function entryPoints(root: string, pkg: PluginPackage): Map<string, string> {
  const entries = new Map<string, string>();
  const add = (file: string, why: string) => {
    if (/\.[cm]?js$/.test(file) && !entries.has(resolve(root, file))) entries.set(resolve(root, file), why);
  };
  if (pkg.oclif?.commands) for (const file of scripts(resolve(root, pkg.oclif.commands))) add(file, 'oclif command');
  const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
  for (const file of bins) add(file, 'bin');
  for (const file of exportTargets(pkg.exports)) add(file, 'exports');
  for (const [event, hooks] of Object.entries(pkg.oclif?.hooks ?? {})) for (const hook of [hooks].flat()) add(typeof hook === 'string' ? hook : hook.target, `oclif hook ${event}`);
  if (pkg.cordon?.fastCommands?.module) add(pkg.cordon.fastCommands.module, 'fast command module');
  return entries;
}

/**
 * The bare packages the modules reachable from `entries` load at run time, each with the files that
 * load it (relative to `root`). Static imports, `require` and `import()` of a literal are followed
 * by esbuild; an `import()` of a computed path (the charts plugin's `loadModule('./render.js')`,
 * which keeps Vega out of its register bundle) is followed when a reached file spells a relative
 * path of a module of the package.
 */
async function reachedPackages(root: string, entries: Iterable<string>): Promise<Map<string, Set<string>>> {
  const packages = new Map<string, Set<string>>();
  const seen = new Set<string>();
  let pending = [...entries];
  while (pending.length > 0) {
    pending.forEach((file) => seen.add(file));
    const result = await build({ entryPoints: pending, bundle: true, write: false, metafile: true, packages: 'external', platform: 'node', format: 'esm', outdir: join(root, '.reached'), logLevel: 'silent' });
    const next = new Set<string>();
    for (const [input, { imports }] of Object.entries(result.metafile.inputs)) {
      const file = resolve(input);
      for (const { path, external } of imports) {
        if (!external || isBuiltin(path)) continue;
        const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]!;
        (packages.get(name) ?? packages.set(name, new Set()).get(name)!).add(relative(root, file));
      }
      for (const [, spelled] of readFileSync(file, 'utf8').matchAll(/["'](\.\.?\/[^"'\n]+\.[cm]?js)["']/g)) {
        const target = resolve(dirname(file), spelled!);
        if (target.startsWith(root + '/') && existsSync(target) && statSync(target).isFile() && !seen.has(target)) next.add(target);
      }
    }
    pending = [...next];
  }
  return packages;
}

describe('an installed first-party plugin loads only what it depends on', () => {
  it.each(PLUGINS)('@cordon/%s: every bare package its unbundled entry points reach at run time is a Node built-in or one of its dependencies, and none is a @cordon package', async (dir) => {
    const root = join(REPO_ROOT, 'plugins', dir);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PluginPackage;
    const entries = entryPoints(root, pkg);
    expect(entries.size).toBeGreaterThan(0);
    const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
    const missing: Record<string, string[]> = {};
    for (const [name, files] of await reachedPackages(root, entries.keys())) {
      // No @cordon package is installed beside a plugin: the plugin API is inlined, the host is the CLI itself.
      if (!declared.has(name) || name.startsWith('@cordon/')) missing[name] = [...files].sort();
    }
    expect(missing, `entry points: ${[...entries].map(([file, why]) => `${relative(root, file)} (${why})`).join(', ')}`).toEqual({});
  });

  it.each(PLUGINS)('@cordon/%s: depends on no @cordon package (none is on the public registry: `cordon plugins install file:<tgz>` would fail, and the name is not ours there)', (dir) => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins', dir, 'package.json'), 'utf8')) as PluginPackage;
    expect(Object.keys(pkg.dependencies ?? {}).filter((name) => name.startsWith('@cordon/'))).toEqual([]);
  });

  it.each(PLUGINS)('@cordon/%s: its copy of the plugin API, if it has one, is what the build writes from the current plugin API (not stale)', async (dir) => {
    const root = join(REPO_ROOT, 'plugins', dir);
    const copy = join(root, VENDORED_PLUGIN_API);
    if (!existsSync(copy)) return;
    const rebuilt = await build({ ...(vendoredPluginApiOptions(root) as BuildOptions), write: false });
    expect(readFileSync(copy, 'utf8')).toBe(rebuilt.outputFiles![0]!.text);
  });
});
