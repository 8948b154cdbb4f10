/** A shell command split into words, as far as a POSIX shell would see one simple command. */
export interface ShellWords {
  /** The words with their quotes removed (no expansion is performed: `$X` stays `$X`). */
  readonly words: string[];
  /**
   * True when the text is one simple command whose every part runs in the command it names: no
   * unquoted `;` `&` `|` `<` `>` `(` `)` or newline, no command substitution (`$(…)`, backquotes,
   * quoted or not), no unterminated quote.
   */
  readonly simple: boolean;
}

const OPERATORS = new Set([';', '&', '|', '<', '>', '(', ')', '\n']);

/**
 * Splits `text` into words by the POSIX shell's quoting rules (XCU 2.2: backslash, single and
 * double quotes; 2.3: operators end a word; a `#` starting a word starts a comment, which ends
 * at the newline), to decide by structure, not by substring, whether a command is one simple
 * command and what it runs.
 */
export function shellWords(text: string): ShellWords {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let simple = true;
  let i = 0;
  const end = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      end();
      i++;
    } else if (c === '#' && !inWord) {
      // A comment runs to the end of its line, not of the text: the newline still separates commands.
      const newline = text.indexOf('\n', i);
      if (newline < 0) break;
      i = newline;
    } else if (OPERATORS.has(c) || c === '`') {
      simple = false;
      end();
      i++;
    } else if (c === '$' && text[i + 1] === '(') {
      simple = false;
      word += c;
      inWord = true;
      i++;
    } else if (c === '\\') {
      // A backslash-newline is a line continuation: removed, it starts no word (XCU 2.2.1).
      if (text[i + 1] !== '\n') {
        // The next character is taken as it is; a backslash that ends the text stands for itself.
        word += i + 1 < text.length ? text[i + 1] : '\\';
        inWord = true;
      }
      i += 2;
    } else if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return { words, simple: false };
      word += text.slice(i + 1, close);
      inWord = true;
      i = close + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      for (;;) {
        if (i >= text.length) return { words, simple: false };
        const d = text[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '`' || (d === '$' && text[i + 1] === '(')) simple = false;
        if (d === '\\' && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1]!)) {
          if (text[i + 1] !== '\n') word += text[i + 1];
          i += 2;
          continue;
        }
        word += d;
        i++;
      }
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  end();
  return { words, simple };
}
