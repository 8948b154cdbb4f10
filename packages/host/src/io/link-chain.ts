import { lstatSync, readlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Most links followed, as the kernel's own limit on a path's links (`MAXSYMLINKS`, 40 on Linux). */
const MAX_LINK_HOPS = 40;

/** Where the chain of symbolic links at a path leads: see {@link linkChain}. */
export interface LinkChain {
  /**
   * The paths the chain passes through, absolute: the path itself first, then each link's
   * target resolved against the link's directory. The last one is where the chain ends (`end`),
   * or, for a loop, the first path met twice.
   */
  readonly hops: readonly string[];
  /**
   * `'file'`: the last hop exists and is no link; `'missing'`: nothing is at the last hop (a
   * dangling link); `'loop'`: a link leads back to one already followed (to itself: two hops,
   * the same path); `'too-long'`: more than 40 links without a loop; `'unreadable'`: a hop
   * could not be examined (a directory on its path is no directory or cannot be searched, or
   * holds a loop itself).
   */
  readonly end: 'file' | 'missing' | 'loop' | 'too-long' | 'unreadable';
}

/**
 * Follows the symbolic link at `path` (the last component only, as `open(2)` does) one link
 * at a time with `lstat` and `readlink`, to tell a dangling link, a loop and a link to itself
 * apart, which `open(2)` reports only as `ENOENT` or `ELOOP`. A path that is no link is a chain of
 * one hop. Costs an `lstat` and a `readlink` per link; never throws.
 */
export function linkChain(path: string): LinkChain {
  const hops = [resolve(path)];
  for (;;) {
    const current = hops[hops.length - 1]!;
    let link: string;
    try {
      if (!lstatSync(current).isSymbolicLink()) return { hops, end: 'file' };
      link = readlinkSync(current);
    } catch (error) {
      return { hops, end: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable' };
    }
    const next = resolve(dirname(current), link);
    const seen = hops.includes(next);
    hops.push(next);
    if (seen) return { hops, end: 'loop' };
    if (hops.length > MAX_LINK_HOPS) return { hops, end: 'too-long' };
  }
}

/**
 * What is wrong with a link chain `open(2)` refused with `ELOOP` while following links, in words
 * for a message after the path: `is a symbolic link to itself`, `is a symbolic link loop
 * (a -> b -> a)`, `is a chain of more than 40 symbolic links`, or, when the loop is in a
 * directory on the way, `has a symbolic link loop on its path`.
 */
export function loopDetail(path: string): string {
  const chain = linkChain(path);
  if (chain.end === 'loop') {
    return chain.hops.length === 2 ? 'is a symbolic link to itself' : `is a symbolic link loop (${chain.hops.join(' -> ')})`;
  }
  if (chain.end === 'too-long') return `is a chain of more than ${MAX_LINK_HOPS} symbolic links`;
  return 'has a symbolic link loop on its path';
}
