/** `"1 call"`, `"2 calls"`: `n` and `word`, with an `s` unless `n` is 1 (English nouns with a plain plural only). */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
