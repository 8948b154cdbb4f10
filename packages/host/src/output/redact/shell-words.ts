// Shell words, as a POSIX shell reads them closely enough to find a program's options: a command
// line split into simple commands of words (quotes and backslashes removed, each character's
// place in the source kept), and a word that is itself a command line read the same way.
import type { Word } from './types.js';

/** Reserved words that may open a command (`if curl …`, `! mysql …`, `{ curl …; }`). */
export const OPENERS = ['!', '{', 'if', 'then', 'elif', 'else', 'do', 'while', 'until'];

/** How deep command lines inside command lines are read (`bash -c "sh -c '…'"`, `GIT_SSH_COMMAND='ssh -o ProxyCommand=…'`). */
export const MAX_DEPTH = 3;

/**
 * `text` (a command line) split into simple commands of words, as a POSIX shell reads it closely
 * enough for finding options: quotes and backslashes are removed from a word's text; `;`, `&`,
 * `|`, new lines, parentheses and backquotes end a command; redirection operators end a word.
 */
export function simpleCommands(text: string): Word[][] {
  const out: Word[][] = [];
  let command: Word[] = [];
  let chars: string[] = [];
  let starts: number[] = [];
  let ends: number[] = [];
  let start = -1;
  const endWord = (end: number): void => {
    if (start >= 0) command.push({ source: text, element: -1, text: chars.join(''), starts, ends, start, end });
    chars = [];
    starts = [];
    ends = [];
    start = -1;
  };
  const endCommand = (end: number): void => {
    endWord(end);
    if (command.length > 0) out.push(command);
    command = [];
  };
  const add = (c: string, from: number, to: number): void => {
    chars.push(c);
    starts.push(from);
    ends.push(to);
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      endWord(i);
      i++;
    } else if (c === '\n' || c === ';' || c === '|' || c === '(' || c === ')' || c === '`') {
      endCommand(i);
      i++;
    } else if (c === '&') {
      // `>&2` and `&>` redirect; any other `&` ends a command.
      const redirect = text[i - 1] === '>' || text[i - 1] === '<' || text[i + 1] === '>';
      if (redirect) endWord(i);
      else endCommand(i);
      i++;
    } else if (c === '<' || c === '>') {
      endWord(i);
      i++;
    } else if (c === '\\') {
      if (text[i + 1] === '\n') {
        i += 2; // a line continuation: neither text nor a break
        continue;
      }
      if (start < 0) start = i;
      if (i + 1 < text.length) add(text[i + 1]!, i, i + 2);
      i += 2;
    } else if (c === "'") {
      if (start < 0) start = i;
      let j = i + 1;
      while (j < text.length && text[j] !== "'") {
        add(text[j]!, j, j + 1);
        j++;
      }
      i = j + 1;
    } else if (c === '"') {
      if (start < 0) start = i;
      let j = i + 1;
      while (j < text.length && text[j] !== '"') {
        const next = text[j + 1];
        if (text[j] === '\\' && (next === '"' || next === '\\' || next === '$' || next === '`')) {
          add(next, j, j + 2);
          j += 2;
        } else {
          add(text[j]!, j, j + 1);
          j++;
        }
      }
      i = j + 1;
    } else {
      if (start < 0) start = i;
      add(c, i, i + 1);
      i++;
    }
  }
  endCommand(Math.min(i, text.length));
  return out;
}

/**
 * The simple commands of `word`'s text from character `from` on, read as a command line, each
 * word's offsets in `word`'s own source (or argv element), so that an edit of an inner word lands
 * where its characters are and the quotes of both levels stay (`bash -c "mysql -p'x y'"` →
 * `-p'***'`). The text is the word's after quote removal, as the program that runs it gets it.
 */
export function innerWords(word: Word, from: number): Word[][] {
  const startOf = (k: number): number => (word.starts ? word.starts[k]! : k);
  const endOf = (k: number): number => (word.ends ? word.ends[k]! : k + 1);
  return simpleCommands(word.text.slice(from)).map((command) =>
    command.map((inner): Word => ({
      source: word.source,
      element: word.element,
      text: inner.text,
      starts: inner.starts!.map((at) => startOf(from + at)),
      ends: inner.ends!.map((at) => endOf(from + at - 1)),
      start: startOf(from + inner.start),
      end: endOf(from + inner.end - 1),
    })),
  );
}
