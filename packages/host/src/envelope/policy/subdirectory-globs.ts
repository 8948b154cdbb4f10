import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { matchGlob } from '../glob.js';
import { keyedGlobs, type GlobKey, type Policy } from './policy.js';

/** A glob that reads as relative to the directory the command ran in ({@link subdirectoryGlobs}). */
export interface SubdirectoryGlob {
  /** The `.cordon.json` key and flag name (without `--`) the glob was given under. */
  readonly key: GlobKey;
  readonly glob: string;
  /** The working directory, relative to the work tree's root (`src`, `pkg/a`). */
  readonly here: string;
  /** The same glob from the root: `<here>/<glob>`. */
  readonly suggested: string;
}

/** At most this many entries of one directory are looked at: a huge one is not worth the warning. */
const MAX_ENTRIES = 10_000;

/**
 * Whether something under the work tree `root` matches `glob`, looking only where the glob can
 * match: the directory its leading literal segments name, and there one level of entries (a
 * `**` after them counts any entry). An approximation for a warning: `false` when the directory
 * is missing or unreadable.
 */
function matchesSomething(root: string, glob: string): boolean {
  const segments = glob.split('/');
  const literal: string[] = [];
  while (literal.length < segments.length - 1 && !/[*?]/.test(segments[literal.length]!)) literal.push(segments[literal.length]!);
  const dir = join(root, ...literal);
  if (literal.length === segments.length) return lstatSync(dir, { throwIfNoEntry: false }) !== undefined;
  let entries: string[];
  try {
    entries = readdirSync(dir).slice(0, MAX_ENTRIES);
  } catch {
    return false;
  }
  const rest = segments.slice(literal.length);
  if (rest[0] === '**') return entries.length > 0;
  const prefix = literal.length ? `${literal.join('/')}/` : '';
  // One level deep: the entry itself, or (for a deeper glob) the directory holding the rest.
  return entries.some((name) => matchGlob(glob, `${prefix}${name}`) || (rest.length > 1 && matchGlob(rest[0]!, name)));
}

/**
 * The globs of `policy` that look written relative to `cwd`, a directory below the work tree
 * `root`: they match nothing where they point from the root, but `<cwd>/<glob>` does (`*.mjs`
 * typed in `src/` for `src/*.mjs`). Globs are always matched against paths from the root
 * (docs/envelopes.md), so such a glob lets no file of the directory change. For a warning at arm
 * time; a glob starting with `**` is left alone (it matches from anywhere already).
 */
export function subdirectoryGlobs(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>, root: string, cwd: string): SubdirectoryGlob[] {
  let rel: string;
  try {
    rel = relative(realpathSync(root), realpathSync(cwd));
  } catch {
    return [];
  }
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return [];
  const here = rel.split(sep).join('/');
  const out: SubdirectoryGlob[] = [];
  for (const { key, glob } of keyedGlobs(policy)) {
    if (glob.startsWith('**')) continue;
    const suggested = `${here}/${glob}`;
    if (!matchesSomething(root, glob) && matchesSomething(root, suggested)) out.push({ key, glob, here, suggested });
  }
  return out;
}

/** The warning `cordon arm` prints for one {@link SubdirectoryGlob}, globs shown through `show` (the caller's terminal escaping). */
export function subdirectoryGlobWarning(found: SubdirectoryGlob, show: (glob: string) => string): string {
  return `warning: ${found.key} glob ${show(found.glob)} matches nothing from the repository root, and globs are matched from there, not from ${show(`${found.here}/`)} where you ran this; for the files here use ${show(found.suggested)} (--${found.key} or "${found.key}" in .cordon.json)`;
}
