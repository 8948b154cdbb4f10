import { lazyPackage } from './lazy-package.js';

// Loaded only when a name was not found (never on the hook's ordinary path).
const levenshtein = lazyPackage<{ get(a: string, b: string): number }>('fast-levenshtein');

/**
 * The name of `names` a user most likely meant by `typed`, or `undefined`: one that starts with
 * what was typed or is its start (`claude` → `claude-code`, `gemini-cli` → `gemini`), else the
 * nearest by edit distance (Levenshtein, two neighbouring characters swapped counting as one
 * edit) when at most a third of the longer name's characters differ, or two for names of five
 * or more (`chek` → `check`, `cdoex` → `codex`, `jsno` → `json`).
 */
export function closestName(typed: string, names: Iterable<string>): string | undefined {
  const list = [...names];
  const prefixed = list.filter((n) => n.startsWith(typed) || typed.startsWith(n));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; d: number } | undefined;
  for (const name of prefixed.length ? prefixed : list) {
    const d = oneSwapApart(typed, name) ? 1 : levenshtein().get(typed, name);
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  const longer = Math.max(typed.length, best.name.length);
  // Names of five characters or more may be two edits away (`chekc` → `check`), shorter ones one.
  return best.d <= Math.max(longer >= 5 ? 2 : 1, Math.floor(longer / 3)) ? best.name : undefined;
}

/** True when `a` is `b` with two neighbouring characters swapped (`rpeo`, `repo`). */
function oneSwapApart(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}
