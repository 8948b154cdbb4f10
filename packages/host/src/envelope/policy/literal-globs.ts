import { keyedGlobs, type GlobKey, type Policy } from './policy.js';

/** A glob of a policy holding `{`, `}`, `[` or `]`, which cordon's globs take literally ({@link bracketGlobs}). */
export interface BracketGlob {
  /** The `.cordon.json` key and flag name (without `--`) the glob was given under. */
  readonly key: GlobKey;
  readonly glob: string;
  /** The bracket characters it holds, in the order `{}[]`. */
  readonly brackets: readonly string[];
  /**
   * The globs it was most likely meant as: each brace alternative (`a.{js,ts}` → `a.js`, `a.ts`)
   * and each character of a plain class (`v[12]` → `v1`, `v2`), at most {@link MAX_ALTERNATIVES};
   * absent when the brackets do not read as one of those (a range, a negation, nesting, too many).
   */
  readonly alternatives?: readonly string[];
}

/** At most this many globs are suggested for one. */
const MAX_ALTERNATIVES = 8;

/**
 * The globs of `policy` that hold a brace or a bracket. Cordon's globs have `*`, `?` and `**`
 * only, every other character literal (docs/envelopes.md "Globs"), so `src/**\/*.{js,ts}` matches
 * a file named `x.{js,ts}` and nothing else: almost surely meant as a shell's or picomatch's
 * brace expansion or character class. For a warning when the policy is fixed (`arm`, `run`,
 * `check --base`); the policy stays as given, since a literal name may be what was meant.
 */
export function bracketGlobs(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>): BracketGlob[] {
  const out: BracketGlob[] = [];
  for (const { key, glob } of keyedGlobs(policy)) {
    const brackets = ['{', '}', '[', ']'].filter((c) => glob.includes(c));
    if (brackets.length === 0) continue;
    const alternatives = expand(glob);
    out.push({ key, glob, brackets, ...(alternatives ? { alternatives } : {}) });
  }
  return out;
}

/** A brace group with two or more comma-separated alternatives and no nested bracket. */
const BRACES = /\{([^{}[\]]*,[^{}[\]]*)\}/;
/** A class of plain characters: no range, negation or nested bracket. */
const CLASS = /\[([^[\]{}!^\\-]{1,8})\]/;

/**
 * `glob` with every brace group and plain class expanded, as a shell or picomatch would read it;
 * undefined when some bracket is left that does not read that way, or there would be more than
 * {@link MAX_ALTERNATIVES}.
 */
function expand(glob: string): string[] | undefined {
  let globs = [glob];
  for (let round = 0; round < MAX_ALTERNATIVES; round++) {
    const next: string[] = [];
    let changed = false;
    for (const g of globs) {
      const braces = BRACES.exec(g);
      const klass = braces ? undefined : CLASS.exec(g);
      const found = braces ?? klass;
      if (!found) {
        next.push(g);
        continue;
      }
      changed = true;
      const parts = braces ? found[1]!.split(',') : [...found[1]!];
      for (const part of parts) next.push(`${g.slice(0, found.index)}${part}${g.slice(found.index + found[0].length)}`);
    }
    if (next.length > MAX_ALTERNATIVES) return undefined;
    globs = [...new Set(next)];
    if (!changed) break;
  }
  return globs.some((g) => /[{}[\]]/.test(g)) || globs.length < 2 ? undefined : globs;
}

/**
 * The warning for one {@link BracketGlob}, each glob shown through `show` (the caller's escaping
 * for a terminal): that the brackets are literal, and the globs to write instead.
 */
export function bracketGlobWarning(found: BracketGlob, show: (glob: string) => string): string {
  const held = found.brackets.join(' ');
  const what = found.brackets.some((c) => c === '{' || c === '}') ? (found.brackets.some((c) => c === '[' || c === ']') ? 'braces and brackets' : 'braces') : 'brackets';
  const instead = found.alternatives
    ? `write one glob per alternative instead: ${found.alternatives.map(show).join(', ')}`
    : 'write one glob per alternative instead, or ? for any one character';
  return `warning: ${found.key} glob ${show(found.glob)} holds ${held}: cordon's globs have no brace expansion or character classes, so the ${what} are literal and it matches only a path with those very characters; ${instead} (--${found.key} once for each, or each in "${found.key}" in .cordon.json)`;
}
