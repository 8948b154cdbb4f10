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
 * option word (the flags that change how the rest is read: watch's `-x`, podman exec's
 * `--latest`).
 */
export function afterOptions(words: readonly Word[], i: number, valued: readonly string[], seen?: (text: string) => void): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--') return i + 1;
    if (!text.startsWith('-') || text === '-') return i;
    seen?.(text);
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

/** The value of long option `name` in `words[j]` (`--command x`, `--command=x`), as {@link shortValue}. */
export function longValue(words: readonly Word[], j: number, name: string): OptionValue | undefined {
  const text = words[j]!.text;
  if (text === name) return j + 1 < words.length ? { word: words[j + 1]!, from: 0, next: j + 2 } : undefined;
  return text.startsWith(`${name}=`) ? { word: words[j]!, from: name.length + 1, next: j + 1 } : undefined;
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
