import { lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isInside } from '../io/safe-read.js';

/** What {@link linkPluginBins} did for one bin of an installed plugin. */
export interface BinLink {
  /** The bin's name (`pcodx`). */
  readonly name: string;
  /** The plugin package that declares it. */
  readonly plugin: string;
  /** The executable inside the data directory. */
  readonly target: string;
  /** `linked`: a link was made or refreshed in the host's bin directory; `kept`: a file of that name that is not cordon's is there; `path`: no bin directory to link into. */
  readonly outcome: 'linked' | 'kept' | 'path';
}

/**
 * The directory the host's own `cordon` was started from when a package manager installed it
 * there as a link (`<prefix>/bin/cordon -> …/@cordon/host/bin/run.cjs`); `undefined` when cordon
 * runs straight from its package (a checkout, `npx`), where no plugin bin belongs.
 */
export function hostBinDir(argv1: string | undefined = process.argv[1]): string | undefined {
  if (!argv1) return undefined;
  try {
    return lstatSync(argv1).isSymbolicLink() ? dirname(resolve(argv1)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes the bins of every plugin installed in `dataDir` (oclif's plugin store:
 * `<dataDir>/package.json` and `<dataDir>/node_modules`) reachable where the host's own bin
 * lives: one symbolic link per bin in `binDir`, pointing at the executable inside the data
 * directory. A file of the same name in `binDir` that does not point into the data directory
 * is never replaced (`kept`). Without `binDir` every bin is reported `path`, for the caller to
 * tell the user to add `<dataDir>/node_modules/.bin` to `PATH`.
 */
export function linkPluginBins(dataDir: string, binDir: string | undefined): BinLink[] {
  const out: BinLink[] = [];
  const store = join(dataDir, 'node_modules');
  for (const plugin of installedPlugins(dataDir)) {
    const root = join(store, plugin);
    let bins: Record<string, string>;
    try {
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: string; bin?: string | Record<string, string> };
      bins = typeof pkg.bin === 'string' ? { [basename(pkg.name ?? plugin)]: pkg.bin } : (pkg.bin ?? {});
    } catch {
      continue;
    }
    for (const [name, rel] of Object.entries(bins)) {
      if (!/^[A-Za-z0-9._-]+$/.test(name)) continue;
      const target = resolve(root, rel);
      if (!binDir) {
        out.push({ name, plugin, target, outcome: 'path' });
        continue;
      }
      const link = join(binDir, name);
      const current = linkTarget(link);
      if (current === null || (current !== undefined && isInside(store, current))) {
        if (current !== null) rmSync(link, { force: true });
        mkdirSync(binDir, { recursive: true });
        symlinkSync(target, link);
        out.push({ name, plugin, target, outcome: 'linked' });
      } else {
        out.push({ name, plugin, target, outcome: 'kept' });
      }
    }
  }
  return out;
}

/**
 * Removes the links in `binDir` that point into `<dataDir>/node_modules` at something that no
 * longer exists (the bins of an uninstalled plugin). Returns the names removed.
 */
export function unlinkStaleBins(dataDir: string, binDir: string | undefined, names: readonly string[]): string[] {
  if (!binDir) return [];
  const store = join(dataDir, 'node_modules');
  const removed: string[] = [];
  for (const name of names) {
    const link = join(binDir, name);
    const target = linkTarget(link);
    if (target === null || target === undefined || !isInside(store, target)) continue;
    try {
      lstatSync(target);
    } catch {
      rmSync(link, { force: true });
      removed.push(name);
    }
  }
  return removed;
}

/** Names of the entries of `binDir` that are links into `<dataDir>/node_modules`. */
export function linkedBinNames(dataDir: string, binDir: string | undefined, candidates: readonly string[]): string[] {
  if (!binDir) return [];
  const store = join(dataDir, 'node_modules');
  return candidates.filter((name) => {
    const t = linkTarget(join(binDir, name));
    return typeof t === 'string' && isInside(store, t);
  });
}

function installedPlugins(dataDir: string): string[] {
  try {
    const pkg = JSON.parse(readFileSync(join(dataDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    return Object.keys(pkg.dependencies ?? {});
  } catch {
    return [];
  }
}

/** `null`: nothing there; `undefined`: a file that is not a link; else the link's absolute target. */
function linkTarget(path: string): string | null | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
  } catch {
    return null;
  }
  const raw = readlinkSync(path);
  return isAbsolute(raw) ? raw : resolve(dirname(path), raw);
}
