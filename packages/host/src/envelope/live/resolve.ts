import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

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
 * `readlink`s, one per existing component.
 */
export function resolveWrite(path: string): { readonly path: string; readonly loop: false } | { readonly loop: true } {
  let rest = path.split('/').filter((part) => part !== '');
  let current = '/';
  let hops = 0;
  while (rest.length > 0) {
    const name = rest[0]!;
    rest = rest.slice(1);
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
      // ENOTDIR, EACCES: the write fails there too; judge the path as named.
      stat = undefined;
    }
    if (stat === undefined) return { path: resolve(next, ...rest), loop: false };
    if (!stat.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) return { loop: true };
    const target = readlinkSync(next);
    if (target.startsWith('/')) current = '/';
    rest = [...target.split('/').filter((part) => part !== ''), ...rest];
  }
  return { path: current, loop: false };
}
