import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { keyedGlobs, type GlobKey, type Policy } from './policy.js';

/** A glob of a policy that names a directory of the work tree literally ({@link directoryGlobs}). */
export interface DirectoryGlob {
  /** The `.cordon.json` key and flag name (without `--`) the glob was given under. */
  readonly key: GlobKey;
  readonly glob: string;
}

/**
 * The globs of `policy` that hold no glob character (`*`, `?`) and name an existing directory
 * under the work tree `root` (a real one: git tracks a symbolic link as one path). A glob matches
 * the whole path, so `src` matches a file named `src` and nothing under the directory: almost
 * surely meant as `src/**`. For a warning at arm time only; the policy stays as given, since a
 * literal path may be exactly what was meant (deny a directory that must not become a file).
 */
export function directoryGlobs(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>, root: string): DirectoryGlob[] {
  const out: DirectoryGlob[] = [];
  for (const { key, glob } of keyedGlobs(policy)) {
    if (/[*?]/.test(glob)) continue;
    if (lstatSync(join(root, glob), { throwIfNoEntry: false })?.isDirectory()) out.push({ key, glob });
  }
  return out;
}

/**
 * The warning `cordon arm` prints for one {@link DirectoryGlob}, with the glob shown through
 * `show` (the caller's escaping for a terminal): what it matches and the glob that covers the
 * directory's contents.
 */
export function directoryGlobWarning(found: DirectoryGlob, show: (glob: string) => string): string {
  return `warning: ${found.key} glob ${show(found.glob)} names a directory, but a glob without * or ? matches that one path only, not the files under it; for everything under it use ${show(`${found.glob}/**`)} (--${found.key} or "${found.key}" in .cordon.json)`;
}
