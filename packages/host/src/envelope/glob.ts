import picomatch from 'picomatch';

/**
 * picomatch options pinned to cordon's glob semantics: `*` never crosses `/`, `**` does, `?` is
 * one non-`/` character, case-sensitive, dotfiles not special; no braces, extglobs, negation
 * or POSIX classes.
 */
export const GLOB_OPTIONS: picomatch.PicomatchOptions = Object.freeze({
  dot: true,
  nocase: false,
  nobrace: true,
  noextglob: true,
  nonegate: true,
  posix: false,
  windows: false,
} as picomatch.PicomatchOptions);

const cache = new Map<string, (path: string) => boolean>();

/** Compiles (and caches) a matcher for one glob against whole repo-relative paths. */
export function compileGlob(glob: string): (path: string) => boolean {
  let matcher = cache.get(glob);
  if (!matcher) {
    matcher = picomatch(glob, GLOB_OPTIONS);
    cache.set(glob, matcher);
  }
  return matcher;
}

/** True when the repo-relative `path` matches `glob` under {@link GLOB_OPTIONS}. */
export function matchGlob(glob: string, path: string): boolean {
  return compileGlob(glob)(path);
}
