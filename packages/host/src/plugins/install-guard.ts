import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-write.js';

/** What {@link snapshotPluginSet} saved: the user's plugin list and the packages an install may touch. */
export interface PluginSetSnapshot {
  /** Puts the saved state back (package.json byte for byte, the saved package directories). */
  restore(): void;
  /** Deletes the saved copies. */
  discard(): void;
}

/**
 * Saves the plugin set oclif's installer may change before `cordon plugins install`: the data
 * dir's `package.json` (which lists linked and installed plugins; oclif's installer drops every
 * entry of the name it failed to install, a linked plugin included) and, for each package name
 * given, its installed directory under `node_modules` (npm replaces or removes it). Copies go to
 * a private temp directory inside `dataDir`.
 * @param names npm package names about to be installed (a spec such as `file:…` has none).
 */
export function snapshotPluginSet(dataDir: string, names: readonly string[]): PluginSetSnapshot {
  const pjsonPath = join(dataDir, 'package.json');
  const pjson = existsSync(pjsonPath) ? readFileSync(pjsonPath) : undefined;
  let store: string | undefined;
  const saved: Array<{ from: string; copy: string }> = [];
  for (const name of names) {
    const dir = join(dataDir, 'node_modules', name);
    if (!existsSync(dir)) continue;
    store ??= mkdtempSync(join(dataDir, '.install-backup-'));
    const copy = join(store, String(saved.length));
    cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
    saved.push({ from: dir, copy });
  }
  const discard = () => {
    if (store) rmSync(store, { recursive: true, force: true });
  };
  return {
    restore() {
      if (pjson === undefined) rmSync(pjsonPath, { force: true });
      else writeFileAtomic(pjsonPath, pjson, { links: 'replace' });
      for (const { from, copy } of saved) {
        rmSync(from, { recursive: true, force: true });
        cpSync(copy, from, { recursive: true, verbatimSymlinks: true });
      }
      discard();
    },
    discard,
  };
}

/**
 * The npm package name of a `plugins install` argument, when it names one: `@scope/name`,
 * `name`, either with `@tag`/`@version`. Undefined for URLs, paths and `file:` specs.
 */
export function packageNameOf(spec: string): string | undefined {
  const m = /^(@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*|[a-z0-9][\w.-]*)(?:@[^/]*)?$/i.exec(spec);
  return m ? m[1] : undefined;
}
