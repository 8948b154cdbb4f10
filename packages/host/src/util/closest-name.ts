import { lazyPackage } from './lazy-package.js';

// Loaded only when a name was not found (never on the hook's ordinary path).
const levenshtein = lazyPackage<{ get(a: string, b: string): number }>('fast-levenshtein');

/**
 * The name of `names` a user most likely meant by `typed`, or `undefined`: the nearest by edit
 * distance (Levenshtein, two neighbouring characters swapped counting as one edit) when at most a
 * third of the longer name's characters differ, or two for names of five or more (`chek` →
 * `check`, `cdoex` → `codex`, `jsno` → `json`, `compact-mnay` → `compact-many`, not `compact`);
 * among names equally near, one that starts with what was typed or is its start wins, then the
 * first given. When no name is that near, the one name that starts with what was typed or is its
 * start (`claude` → `claude-code`, `gemini-cli` → `gemini`), if only one does. Nothing for an
 * empty `typed`.
 */
export function closestName(typed: string, names: Iterable<string>): string | undefined {
  // Every name starts with nothing: an empty word means none of them.
  if (typed === '') return undefined;
  const list = [...names];
  const prefixes = (n: string): boolean => n.startsWith(typed) || typed.startsWith(n);
  let best: { name: string; d: number; prefix: boolean } | undefined;
  for (const name of list) {
    const d = oneSwapApart(typed, name) ? 1 : levenshtein().get(typed, name);
    const prefix = prefixes(name);
    // A prefix only breaks a tie: `compact` is five edits from `compact-mnay`, `compact-many` one.
    if (!best || d < best.d || (d === best.d && prefix && !best.prefix)) best = { name, d, prefix };
  }
  if (best) {
    const longer = Math.max(typed.length, best.name.length);
    // Names of five characters or more may be two edits away (`chekc` → `check`), shorter ones one.
    if (best.d <= Math.max(longer >= 5 ? 2 : 1, Math.floor(longer / 3))) return best.name;
  }
  const prefixed = list.filter(prefixes);
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** True when `a` is `b` with two neighbouring characters swapped (`rpeo`, `repo`). */
function oneSwapApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}
