import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CollectedPlugin } from '../bus/host.js';
import { unbuiltLinkError } from './unbuilt.js';
import { nodeModule } from '../util/builtins.js';
import { registerTargets } from './hook-targets.js';
import { parseJsonText } from '../util/json-syntax.js';
import { blockingFileKind, isMissingFile, readRegularFile } from '../io/safe-read.js';
import { PACKAGE_JSON_MAX_BYTES, pluginListProblem } from './data-package.js';

/** A plugin package found on disk. */
export interface PluginPackage {
  /** Package name. */
  readonly name: string;
  /** Absolute package root. */
  readonly root: string;
  /** Linked (`cordon plugins link`): a checkout, which may not be built. */
  readonly linked?: boolean;
  /** Parsed package.json. */
  readonly pjson: { name?: string; oclif?: { hooks?: Record<string, unknown> }; cordon?: { registerReads?: unknown } };
}

function readJson(path: string): any {
  // Non-blocking, regular files only (io/safe-read.ts): a FIFO as a listed plugin's package.json
  // held every command, the hook included, until something wrote to it.
  // Its syntax error says where (`invalid symbol at line 1, column 2`) for the log.
  return parseJsonText(readRegularFile(path, { maxBytes: PACKAGE_JSON_MAX_BYTES, links: 'always' }).toString('utf8'));
}

/**
 * Finds the plugin packages oclif would load, without importing `@oclif/core` (the hot path's
 * budget: the hot-path measurements in docs/hooks.md): the host's core plugins (`oclif.plugins` resolved from
 * the host root), then the user-installed (`<dataDir>/node_modules/<name>`) and linked (`root`)
 * entries of `<dataDir>/package.json`. As in oclif, a user or linked plugin replaces a core
 * plugin of the same name. Unreadable entries are skipped; `onSkip` hears why (of `<dataDir>/package.json` too,
 * unless it does not exist). `hostPackage` is the
 * host's package.json when the caller has read it already.
 */
export function findPluginPackages(
  hostRoot: string,
  dataDir: string,
  onSkip: (what: string, error: unknown) => void = () => undefined,
  hostPackage?: { readonly oclif?: { readonly plugins?: unknown } },
): PluginPackage[] {
  const found = new Map<string, PluginPackage>();
  const add = (root: string, linked = false): void => {
    try {
      const pjson = readJson(join(root, 'package.json'));
      found.set(pjson.name ?? root, { name: pjson.name ?? root, root, pjson, ...(linked ? { linked } : {}) });
    } catch (error) {
      onSkip(root, error);
    }
  };
  try {
    const host = hostPackage ?? readJson(join(hostRoot, 'package.json'));
    let fromHost: NodeJS.Require | undefined;
    for (const name of (host.oclif?.plugins ?? []) as string[]) {
      if (name.startsWith('@oclif/')) continue; // oclif's own plugins never register cordon taps
      try {
        fromHost ??= nodeModule().createRequire(join(hostRoot, 'package.json'));
        add(dirname(fromHost.resolve(`${name}/package.json`)));
      } catch (error) {
        onSkip(name, error);
      }
    }
  } catch (error) {
    onSkip(hostRoot, error);
  }
  let user: { oclif?: { plugins?: Array<{ name: string; type: string; root?: string }> } } = {};
  try {
    const read: unknown = readJson(join(dataDir, 'package.json'));
    // `null` or `[]` is JSON but no list of plugins: said as a damaged file is.
    if (read === null || typeof read !== 'object' || Array.isArray(read)) throw new TypeError('it must hold a JSON object');
    // `"plugins": 5`, `[null]`: said as a damaged file is, instead of a TypeError from the loop below.
    const shape = pluginListProblem(read as Record<string, unknown>);
    if (shape !== undefined) throw new TypeError(shape);
    user = read;
  } catch (error) {
    // ENOENT: no user plugins installed. Anything else (a data directory that is a file, a
    // damaged package.json) is said, and no user plugin loads.
    if (!isMissingFile(error) && (error as NodeJS.ErrnoException).code !== 'ENOENT') onSkip(join(dataDir, 'package.json'), error);
  }
  for (const entry of user.oclif?.plugins ?? []) {
    if (entry.type === 'link' && entry.root) add(isAbsolute(entry.root) ? entry.root : resolve(dataDir, entry.root), true);
    else if (entry.type === 'user') add(join(dataDir, 'node_modules', entry.name));
  }
  return [...found.values()];
}

/**
 * A `require` for modules named by absolute path. Inside one of Cordon's CommonJS bundles (the
 * hook's) that is the bundle's own `require`, which costs nothing more; in the ES module build,
 * one from `createRequire`.
 */
const requireAbsolute = (): NodeJS.Require => (typeof require === 'function' ? require : nodeModule().createRequire(import.meta.url));

/**
 * Set by `bin/run.cjs` for the hook process: `require` through a V8 code cache kept in Cordon's
 * cache directory (its `requireCached`). A plugin's CommonJS register bundle then compiles from
 * the cache, not from source, on every tool call (`npm run bench:hook`).
 */
const REQUIRE_CACHED = Symbol.for('cordon.requireCached');

/**
 * Loads a module by absolute path; a `.cjs` file through the hook process's code cache when there
 * is one ({@link REQUIRE_CACHED}, cache files named after `cacheName`). Otherwise `require()` first
 * where Node loads ES modules synchronously (`process.features.require_module`: Node ≥ 20.19 and
 * ≥ 22.12): it skips the asynchronous ESM loader, whose start-up the hook process would pay on every tool call. A module with top-level
 * await (`ERR_REQUIRE_ASYNC_MODULE`) or an older Node falls back to `import()`. Throws, loading
 * nothing, when `path` is a FIFO, socket or device (io/safe-read.ts `blockingFileKind`).
 */
async function loadModule(path: string, cacheName: string): Promise<Record<string, unknown>> {
  // Node's loaders open a module with a blocking open: a FIFO here held the hook, and with it the
  // agent's tool call, until something wrote to it; /dev/zero would be read for ever.
  const kind = blockingFileKind(path);
  if (kind !== undefined) throw new Error(`its cordon:register module ${path} is not a regular file (${kind})`);
  const cached = (globalThis as Record<symbol, unknown>)[REQUIRE_CACHED] as ((file: string, cacheName: string) => unknown) | undefined;
  if (cached && path.endsWith('.cjs')) return cached(path, cacheName) as Record<string, unknown>;
  if ((process.features as { require_module?: boolean }).require_module) {
    try {
      return requireAbsolute()(path) as Record<string, unknown>;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== 'ERR_REQUIRE_ASYNC_MODULE' && code !== 'ERR_REQUIRE_ESM') throw error;
    }
  }
  return import(pathToFileURL(path).href) as Promise<Record<string, unknown>>;
}

/**
 * Imports each package's `cordon:register` hook modules and calls them, the same declarations the
 * oclif route runs through `config.runHook`. A module that fails to load or throws is returned
 * as a descriptor-less entry so the host records it as that plugin's failure.
 */
export async function collectFromPackages(packages: readonly PluginPackage[]): Promise<CollectedPlugin[]> {
  // Returned in package order; modules load synchronously where Node can (see loadModule).
  const one = async (pkg: PluginPackage, target: string, identifier: string): Promise<CollectedPlugin> => {
    try {
      const mod = await loadModule(resolve(pkg.root, target), `${pkg.name.replace(/[^\w.-]/g, '_')}-${basename(target)}`);
      const fn = mod[identifier];
      return { source: pkg.name, descriptor: typeof fn === 'function' ? await fn({}) : undefined };
    } catch (error) {
      // A linked checkout never built: said as such, with its fix (plugins/unbuilt.ts).
      return { source: pkg.name, error: (pkg.linked ? unbuiltLinkError(pkg.root, pkg.name) : undefined) ?? error };
    }
  };
  return Promise.all(packages.flatMap((pkg) => registerTargets(pkg.pjson).map(({ target, identifier }) => one(pkg, target, identifier))));
}
