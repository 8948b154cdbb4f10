import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * Longest path, in bytes, a write can name: Linux's `PATH_MAX` (4096, with its NUL;
 * path_resolution(7), `ENAMETOOLONG`). A longer path reaches no file as it is spelt.
 */
export const MAX_PATH_BYTES = 4096;

/**
 * The absolute paths a tool writing `target` may hand the kernel, each to be resolved by
 * {@link resolveWrite}: first the target as named (a relative one joined to `cwd`, the working
 * directory with its links resolved, as the kernel starts a relative path there), so a `..`
 * after a symbolic link goes up from where the link leads; then its lexical normal form, `..`
 * taken off the name before any link is read, from `cwd` and from `namedCwd` (the working
 * directory as the agent reported it, links unresolved). Agents normalise before they write:
 * Gemini CLI's `write_file` writes `path.resolve(targetDir, file_path)`, Codex's patch tool
 * `AbsolutePathBuf::resolve_path_against_base` (codex-rs/utils/absolute-path), so
 * `src/link/../secret/k` is written to `src/secret/k` whatever `src/link` leads to. Distinct
 * paths only; one of {@link MAX_PATH_BYTES} bytes or more is left out (no write can open it as
 * spelt), so a megabyte of `a/../` is judged by the short path it normalises to.
 */
export function writeSpellings(target: string, cwd: string, namedCwd?: string): string[] {
  const spellings = [isAbsolute(target) ? target : `${cwd}/${target}`, resolve(cwd, target)];
  if (namedCwd !== undefined && isAbsolute(namedCwd)) spellings.push(resolve(namedCwd, target));
  return [...new Set(spellings)].filter((path) => Buffer.byteLength(path) < MAX_PATH_BYTES);
}

/** Most symbolic links followed for one path, as Linux's `MAXSYMLINKS` (path_resolution(7)). */
export const MAX_LINK_HOPS = 40;

/**
 * Where a write to the absolute `path` lands, resolved the way the kernel resolves it
 * (path_resolution(7)): component by component from `/`, each symbolic link replaced by its
 * target (relative to the link's directory) before the next component is read, so `a/link/../x`
 * goes where the link leads and not where a lexical `resolve` would put it. A dangling link is
 * followed too: writing through it creates its target. From the first component that does not
 * exist on, the rest is joined lexically (nothing there can be a link). `loop: true` when more
 * than {@link MAX_LINK_HOPS} links were met (the kernel's `ELOOP`). Reads only `lstat`s and
 * `readlink`s, one per existing component. On Windows the path is normalised first and its
 * longest existing prefix resolved by the system (`realpathSync.native`).
 *
 * With `followLast: false` the path is resolved as `unlink(2)` and `rename(2)` resolve it: a link
 * that is the path's last component is not followed (the link itself is what changes), while
 * links among its parent directories are; a path ending in `/` still follows it, as the kernel
 * does. `lastIsLink` says whether the path's last component was a link, followed or not.
 */
export function resolveWrite(path: string, options: { readonly followLast?: boolean } = {}): { readonly path: string; readonly loop: false; readonly lastIsLink?: boolean } | { readonly loop: true } {
  if (process.platform === 'win32') return { path: realPrefix(resolve(path), options.followLast === false), loop: false };
  const followLast = options.followLast !== false || path.endsWith('/');
  let lastIsLink = false;
  // The components still to walk, last first (a stack: a link's target is pushed in front of the rest).
  const rest = path.split('/').filter((part) => part !== '').reverse();
  let current = '/';
  let hops = 0;
  while (rest.length > 0) {
    const name = rest.pop()!;
    if (name === '.') continue;
    if (name === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, name);
    let stat;
    try {
      stat = lstatSync(next, { throwIfNoEntry: false });
    } catch {
      // ENOTDIR, EACCES, ENAMETOOLONG, a NUL byte: the write fails there too; judge the path as named.
      stat = undefined;
    }
    if (stat === undefined) return { path: resolve(next, ...rest.reverse()), loop: false };
    if (!stat.isSymbolicLink()) {
      current = next;
      continue;
    }
    // Nothing left to walk: this link is the path's last component (a link target's own
    // components are pushed onto `rest`, so only the named path's last one empties it).
    if (rest.length === 0) {
      lastIsLink = true;
      if (!followLast) return { path: next, loop: false, lastIsLink };
    }
    if (++hops > MAX_LINK_HOPS) return { loop: true };
    const target = readlinkSync(next);
    if (target.startsWith('/')) current = '/';
    const parts = target.split('/').filter((part) => part !== '');
    for (let i = parts.length - 1; i >= 0; i--) rest.push(parts[i]!);
  }
  return { path: current, loop: false, lastIsLink };
}

/**
 * Windows: `path` (absolute, normalised) with its longest existing prefix replaced by that
 * prefix's real path (links and junctions followed by the system), the rest appended as named;
 * with `keepLast`, the last component is appended as named (its parent resolved).
 */
function realPrefix(path: string, keepLast = false): string {
  if (keepLast && dirname(path) !== path) return join(realPrefix(dirname(path)), basename(path));
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync.native(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}
