import type picomatchModule from 'picomatch';
import { cutText } from '@cordon/plugin-api';
import { lazyPackage } from '../util/lazy-package.js';
import type { GlobRegexStore } from './glob-store.js';

// Loaded on first use: the host lends matchGlob to every plugin, so this module is imported by the
// hook process on every tool call, which never matches a glob (the hot-path measurements in docs/hooks.md).
const picomatch = lazyPackage<typeof picomatchModule>('picomatch');

/**
 * Envelope globs (the BEKO2210/SkillQuarry cordon's, made stricter; docs/envelopes.md):
 *
 * - A glob is matched against the whole repo-relative path, `/`-separated, case-sensitive.
 * - `*` matches any run of characters except `/` (possibly empty); dotfiles are not special.
 * - `?` matches exactly one character except `/`.
 * - A segment that is exactly `**` matches zero or more whole segments (`**\/x` matches `x`
 *   and `a/b/x`; `a/**\/b` matches `a/b`). As the last segment it matches one or more, so
 *   `src/**` covers everything under `src` but not a file named `src` (gitignore(5) "Two
 *   consecutive asterisks"; the reference's behaviour). Elsewhere `**` is an ordinary `*`.
 * - Every other character is literal: no braces, extglobs, negation, bracket classes or
 *   escapes. A backslash is therefore refused (use `?` to match one).
 *
 * picomatch does the matching with {@link GLOB_OPTIONS}; each literal character is escaped
 * before compiling, so picomatch's own syntax (`[…]`, `(…)`, `!`, `+`, `@`) never applies.
 */
export const GLOB_OPTIONS: picomatchModule.PicomatchOptions = Object.freeze({
  dot: true,
  nocase: false,
  nobrace: true,
  noextglob: true,
  nonegate: true,
  // A trailing `/**` needs at least one more segment.
  strictSlashes: true,
  // `s`: names containing a newline still match `**` (the reference's defect C1). No `i`.
  flags: 's',
  posix: false,
  windows: false,
} as picomatchModule.PicomatchOptions);

/** Longest glob accepted, in characters (the BEKO2210/SkillQuarry cordon). */
export const MAX_GLOB_LENGTH = 512;

/**
 * Why `glob` is not a valid envelope glob, or `undefined` when it is. Rules (the BEKO2210/SkillQuarry cordon,
 * tightened): non-empty, at most {@link MAX_GLOB_LENGTH} characters, no NUL, not absolute-ish
 * (`/x`, `./x`), no `.` or `..` segment, no empty segment (`a//b`, `a/`: git paths never have
 * one, so such a glob could never match), no backslash (there is no escape character).
 */
export function globProblem(glob: string): string | undefined {
  // Whole sentences about "a glob": callers put the flag or key and the quoted value in front
  // (`--allow "": a glob cannot be empty`; globListProblem).
  if (typeof glob !== 'string' || glob.length === 0) return 'a glob cannot be empty';
  if (glob.length > MAX_GLOB_LENGTH) return `a glob cannot be longer than ${MAX_GLOB_LENGTH} characters (this one has ${glob.length})`;
  if (glob.includes('\0')) return 'a glob cannot contain a NUL character';
  if (glob.startsWith('/') || glob.startsWith('./')) return 'a glob must be relative to the repository root (no leading "/" or "./")';
  if (glob.includes('\\')) return 'a glob cannot contain a backslash (globs have no escape character; use ? to match one character)';
  for (const segment of glob.split('/')) {
    if (segment === '.' || segment === '..') return `a glob cannot have a "${segment}" path segment`;
    if (segment === '') return 'a glob cannot have an empty path segment ("//" or a trailing "/")';
  }
  return undefined;
}

/**
 * The first invalid glob of `globs` given as `name` (a flag, `--allow`, or a file and key,
 * `.cordon.json: "allow"`), as `<name> "<glob>": <why>`, the glob JSON-quoted (an empty one or a
 * blank in it shows; a long one is cut); undefined when every glob is valid.
 */
export function globListProblem(name: string, globs: readonly unknown[]): string | undefined {
  for (const glob of globs) {
    if (typeof glob !== 'string') return `${name}: a glob must be a string`;
    const problem = globProblem(glob);
    if (problem) return `${name} ${JSON.stringify(cutText(glob, 200))}: ${problem}`;
  }
  return undefined;
}

/** The picomatch source for a valid envelope glob: literals escaped, `*`, `?`, `/` kept. */
export function toPicomatchSource(glob: string): string {
  return glob.replace(/[^*?/A-Za-z0-9_]/g, (c) => `\\${c}`);
}

const cache = new Map<string, (path: string) => boolean>();

/**
 * Compiles (and caches) a matcher for one envelope glob against whole repo-relative paths.
 * With `store`, the expression picomatch compiled for the glob in an earlier process is reused
 * (the hook's live envelope: {@link GlobRegexStore}). Throws `TypeError` naming the glob when
 * {@link globProblem} rejects it.
 */
export function compileGlob(glob: string, store?: GlobRegexStore): (path: string) => boolean {
  let matcher = cache.get(glob);
  if (!matcher) {
    const problem = globProblem(glob);
    if (problem) throw new TypeError(`invalid glob ${JSON.stringify(glob)}: ${problem}`);
    // The compiled regular expression is all picomatch's matcher would test with these options.
    let regex = store?.get(glob);
    if (!regex) {
      regex = picomatch().makeRe(toPicomatchSource(glob), GLOB_OPTIONS);
      store?.put(glob, regex);
    }
    matcher = (path: string) => regex.test(path);
    cache.set(glob, matcher);
  }
  return matcher;
}

/** True when the repo-relative `path` matches `glob` (semantics above). */
export function matchGlob(glob: string, path: string): boolean {
  return compileGlob(glob)(path);
}

/**
 * True when `glob` certainly matches every path strictly below directory `dir` (repo-relative,
 * no trailing slash): `glob` is `**`, or it ends in `/**` and the rest matches `dir` or one of
 * its ancestors. Used to skip walking ignored directories that `--allow-ignored` covers; a
 * `false` only means "walk it and test each path".
 */
export function globCoversDirectory(glob: string, dir: string): boolean {
  if (glob === '**') return true;
  if (!glob.endsWith('/**')) return false;
  const prefix = glob.slice(0, -3);
  const segments = dir.split('/');
  for (let i = 1; i <= segments.length; i++) {
    if (matchGlob(prefix, segments.slice(0, i).join('/'))) return true;
  }
  return false;
}
