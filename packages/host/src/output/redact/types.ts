// The words and edits the masking of programs' credential options works on (redact-programs.ts
// and the files beside this one), and the reader a program's grammar calls back.

/**
 * One shell word: its text after quote removal, and for each of its characters where it starts
 * and ends in the source (`'a'` → text `a` at 1..2), so a masked value keeps its quotes.
 */
export interface Word {
  /** The text the offsets below point into: the command line, or for argv the element itself. */
  readonly source: string;
  /** The argv element it is (-1 in a command line). */
  readonly element: number;
  readonly text: string;
  /** Where each character of `text` starts and ends in `source`; absent when `text` is `source` itself (an argv element). */
  readonly starts?: readonly number[];
  readonly ends?: readonly number[];
  /** The word's span in the source. */
  readonly start: number;
  readonly end: number;
}

/** A replacement of `source.slice(start, end)` (in argv element `element`, or the command line for -1). */
export interface Edit {
  readonly element: number;
  readonly start: number;
  readonly end: number;
  readonly with: string;
}

/**
 * How a program's grammar (`grammars/`) reads the commands it runs: handed to it by
 * redact-programs.ts, which finds the program of each command and calls the grammar, so the two
 * need not import each other.
 */
export interface CommandReader {
  /**
   * Adds the edits for one simple command (`words` from `i` on): assignments, wrappers and
   * reserved words passed over to the program word, then the program's own rule or grammar.
   */
  command(words: readonly Word[], i: number, edits: Edit[], depth: number): void;
  /**
   * Adds the edits inside `word`, a word that is itself a command line (`-c`'s word, ssh's remote
   * command, `su -c`'s, `flock -c`'s), from character `from` of its text on (`--command=…`,
   * `GIT_SSH_COMMAND=…`); nothing deeper than `MAX_DEPTH` (shell-words.ts).
   */
  script(word: Word, edits: Edit[], depth: number, from?: number): void;
  /**
   * Adds the edits for a command given as words that a shell runs joined with spaces (ssh's
   * remote command, watch's command): its words read as a command (`ssh h mysql -pX`), and each
   * word with a space in it read as a command line of its own (`ssh h 'mysql -pX db'`).
   */
  joined(words: readonly Word[], i: number, edits: Edit[], depth: number): void;
}

/**
 * The reader of a program that runs a command of its own grammar (`watch`, `su -c`, `find -exec`
 * …; `words[i]` names the program): adds the edits in the commands it runs, through `read`.
 */
export type Follower = (read: CommandReader, words: readonly Word[], i: number, edits: Edit[], depth: number) => void;
