import { lazyPackage } from './lazy-package.js';

// Loaded only when a name was not found (never on the hook's ordinary path).
const levenshtein = lazyPackage<{ get(a: string, b: string): number }>('fast-levenshtein');

/**
 * The name of `names` a user most likely meant by `typed`, or `undefined`: one that starts with
 * what was typed or is its start (`claude` → `claude-code`, `gemini-cli` → `gemini`), else the
 * nearest by edit distance (Levenshtein) when at most a third of the longer name's characters
 * differ, or two for names of five or more (`chek` → `check`, `cdoex` → `codex`).
 */
export function closestName(typed: string, names: Iterable<string>): string | undefined {
  const list = [...names];
  const prefixed = list.filter((n) => n.startsWith(typed) || typed.startsWith(n));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; d: number } | undefined;
  for (const name of prefixed.length ? prefixed : list) {
    const d = levenshtein().get(typed, name);
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  const longer = Math.max(typed.length, best.name.length);
  // Two edits are one swapped pair (`cdoex`), which Levenshtein counts twice; not for short names.
  return best.d <= Math.max(longer >= 5 ? 2 : 1, Math.floor(longer / 3)) ? best.name : undefined;
}
