import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { keyedGlobs, type GlobKey, type Policy } from './policy.js';

/** A glob whose literal leading path differs from the work tree's only in letter case ({@link caseGlobs}). */
export interface CaseGlob {
  /** The `.cordon.json` key and flag name (without `--`) the glob was given under. */
  readonly key: GlobKey;
  readonly glob: string;
  /** The glob's literal path up to the first name the work tree does not hold as written (`SRC`). */
  readonly given: string;
  /** That path as the work tree spells it (`src`). */
  readonly actual: string;
  /** The glob with that path spelt as the work tree does (`src/**`). */
  readonly suggestion: string;
}

/**
 * The globs of `policy` whose literal leading names (those before the first `*` or `?`) are not
 * all in the work tree `root` as written, where the first missing one is there in another letter
 * case, once (`SRC/**` where the tree has `src/`; `README.MD` for `README.md`). Globs match
 * git's paths letter for letter (docs/envelopes.md "Globs"), so such a glob matches nothing there,
 * on a case-insensitive file system too, whose `src` also answers to `SRC`: names are compared
 * with what the directory lists, not looked up. A deny glob spelt so protects nothing. For a
 * warning when the policy is fixed (`arm`, `run`, `check --base`); the policy stays as given,
 * since the agent may be meant to create that path.
 */
export function caseGlobs(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>, root: string): CaseGlob[] {
  const out: CaseGlob[] = [];
  const listed = new Map<string, readonly string[] | undefined>();
  const list = (dir: string): readonly string[] | undefined => {
    if (!listed.has(dir)) {
      let names: string[] | undefined;
      try {
        names = readdirSync(dir);
      } catch {
        names = undefined;
      }
      listed.set(dir, names);
    }
    return listed.get(dir);
  };
  for (const { key, glob } of keyedGlobs(policy)) {
    const names = glob.split('/');
    const fixed: string[] = [];
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name === '' || name === '.' || name === '..' || /[*?]/.test(name)) break;
      const entries = list(join(root, ...fixed));
      if (!entries) break;
      if (entries.includes(name)) {
        fixed.push(name);
        continue;
      }
      const lower = name.toLowerCase();
      const others = entries.filter((entry) => entry.toLowerCase() === lower);
      if (others.length === 1) out.push({ key, glob, given: [...fixed, name].join('/'), actual: [...fixed, others[0]!].join('/'), suggestion: [...fixed, others[0]!, ...names.slice(i + 1)].join('/') });
      break;
    }
  }
  return out;
}

/**
 * The warning for one {@link CaseGlob}, its paths shown through `show` (the caller's escaping for a
 * terminal): what the work tree holds instead, and the glob spelt as it does.
 */
export function caseGlobWarning(found: CaseGlob, show: (glob: string) => string): string {
  return `warning: ${found.key} glob ${show(found.glob)} names ${show(found.given)}, which the work tree does not have, but it has ${show(found.actual)}, and globs match letter case exactly; for it use ${show(found.suggestion)} (--${found.key} or "${found.key}" in .cordon.json)`;
}
