// Reading a program's option words as getopt(3) and GNU long options write them: where its
// options end, which take the next word as their value, and the value of one of them.
import type { Word } from './types.js';

/**
 * Index of the first word from `i` on that is not an option (nor the value of one of `valued`),
 * or of the `--` that ends the options; `words.length` when there is none.
 */
export function skipOptions(words: readonly Word[], i: number, valued: readonly string[]): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--' || !text.startsWith('-') || text === '-') return i;
    i += takesNext(text, valued) ? 2 : 1;
  }
  return i;
}

/**
 * Index of the first word from `i` on after a program's options: the word after the `--` that
 * ends them, else the first word that is not an option (`-` alone is an operand); an option in
 * `valued` takes the next word as its value ({@link takesNext}). `seen`, if given, gets each
 * option word and its index (the flags that change how the rest is read: watch's `-x`, podman
 * exec's `--latest`, docker run's `--entrypoint`).
 */
export function afterOptions(words: readonly Word[], i: number, valued: readonly string[], seen?: (text: string, at: number) => void): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--') return i + 1;
    if (!text.startsWith('-') || text === '-') return i;
    seen?.(text, i);
    i += takesNext(text, valued) ? 2 : 1;
  }
  return i;
}

/** Whether option word `text` leaves its value to the next word (`-u` of `sudo -u root`, also `-Eu`), `valued` naming the options that take one. */
export function takesNext(text: string, valued: readonly string[]): boolean {
  if (text.startsWith('--')) return !text.includes('=') && valued.includes(text);
  for (let j = 1; j < text.length; j++) if (valued.includes(`-${text[j]}`)) return j === text.length - 1;
  return false;
}

/** Where an option's value is: the word that holds it, where in that word's text it starts, and the index of the word after it. */
export interface OptionValue {
  readonly word: Word;
  readonly from: number;
  readonly next: number;
}

/**
 * The value of one-letter option `letter` in getopt option word `words[j]` (`-S x`, `-Sx`, `-iS
 * x`, after flags in one word): the word that holds it, where in that word's text it starts,
 * and the index of the word after it; undefined when the word is another option, or a letter in
 * `valued` (an option that takes the rest as its value) comes first.
 */
export function shortValue(words: readonly Word[], j: number, letter: string, valued: readonly string[]): OptionValue | undefined {
  const text = words[j]!.text;
  if (text.length < 2 || text[0] !== '-' || text[1] === '-') return undefined;
  for (let k = 1; k < text.length; k++) {
    if (text[k] === letter) {
      if (k + 1 < text.length) return { word: words[j]!, from: k + 1, next: j + 1 };
      return j + 1 < words.length ? { word: words[j + 1]!, from: 0, next: j + 2 } : undefined;
    }
    if (valued.includes(`-${text[k]}`)) return undefined;
  }
  return undefined;
}

/**
 * The value of long option `name` in `words[j]` (`--command x`, `--command=x`), as
 * {@link shortValue}; also under any abbreviation at least as long as `shortest` (`--comm x`):
 * getopt_long(3) takes "a unique abbreviation" of a long option's name
 * (https://man7.org/linux/man-pages/man3/getopt_long.3.html), and git's parse-options "its
 * unique prefix" (https://git-scm.com/docs/gitcli). `shortest` is the shortest prefix no other
 * option of that program shares; by default only the whole name counts (popt, rsync's parser, and
 * hand-written parsers such as git filter-branch's take no abbreviation).
 */
export function longValue(words: readonly Word[], j: number, name: string, shortest: string = name): OptionValue | undefined {
  const text = words[j]!.text;
  const equals = text.indexOf('=');
  const given = equals < 0 ? text : text.slice(0, equals);
  if (given.length < shortest.length || !name.startsWith(given)) return undefined;
  if (equals >= 0) return { word: words[j]!, from: equals + 1, next: j + 1 };
  return j + 1 < words.length ? { word: words[j + 1]!, from: 0, next: j + 2 } : undefined;
}

/** Whether option word `text` is long option `name` or an abbreviation of it at least as long as `shortest` ({@link longValue}), without a value. */
export function isLongFlag(text: string, name: string, shortest: string = name): boolean {
  return text.length >= shortest.length && name.startsWith(text);
}

/** Whether getopt option word `text` holds flag `letter` (`-tx`), before any letter of `valued`. */
export function hasFlag(text: string, letter: string, valued: readonly string[]): boolean {
  if (text.length < 2 || text[0] !== '-' || text[1] === '-') return false;
  for (let k = 1; k < text.length; k++) {
    if (text[k] === letter) return true;
    if (valued.includes(`-${text[k]}`)) return false;
  }
  return false;
}

/** Whether `text` is a shell variable assignment (`NAME=value`). */
export function isAssignment(text: string): boolean {
  const equals = text.indexOf('=');
  if (equals <= 0) return false;
  for (let j = 0; j < equals; j++) {
    const c = text.charCodeAt(j);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && !(j > 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}

/** The last path part of a command word (`/usr/bin/curl` → `curl`). */
export function programName(text: string): string {
  return text.slice(text.lastIndexOf('/') + 1);
}
