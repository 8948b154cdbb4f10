import { terminalText } from '../../output/terminal.js';
import { splitCommand } from './spec.js';

/**
 * Words that only a shell gives meaning to: list and pipeline operators and redirections (POSIX
 * XCU 2.9.2 "Pipelines", 2.9.3 "Lists", 2.7 "Redirection"). A verifier is split like a shell
 * would split it but never run by one, so these reach the program as arguments:
 * `npm run build && npm test` runs `npm run build` with the arguments `&&`, `npm` and `test`, and
 * passes without running the tests. `;` is left out: `find … -exec cmd {} ;` takes it as an
 * argument on purpose.
 */
const OPERATOR = /^(?:&&|\|\||\||\|&|&|[0-9]*>>?|[0-9]*>&[0-9-]+|&>>?)$/;
/**
 * An output redirection written against its target (`>out.txt`, `2>/dev/null`). Input forms
 * (`<`) are left out on purpose: `<title>` is a plausible literal argument (`grep -q '<title>'`).
 */
const REDIRECTION = /^(?:[0-9]*>>?|&>>?)[^<>&|]/;

/** Where {@link walkCommand} stands: one character a shell would give meaning to. */
interface CommandPosition {
  /** Its index in the command. */
  readonly index: number;
  readonly char: string;
  /** True inside double quotes; single-quoted text is never visited. */
  readonly doubleQuoted: boolean;
  /** Which word holds it, 0 being the program. */
  readonly word: number;
  /** The word's text before it as written (quotes and backslashes kept); `''` at a word's start. */
  readonly wordSoFar: string;
}

/**
 * Walks `command` with the splitter's quoting rules (POSIX XCU 2.2 "Quoting"): whitespace outside
 * quotes ends a word; nothing inside single quotes is visited, nor a quote that opens or closes;
 * a backslash is visited (the character after it is then skipped). Calls `visit` for every other
 * character until it returns something, which is the result; `wordEnd` hears each word as
 * written once whitespace ends it. Undefined when `visit` never answers.
 */
function walkCommand<T>(command: string, visit: (at: CommandPosition) => T | undefined, wordEnd?: (word: string) => void): T | undefined {
  let quote: '"' | "'" | undefined;
  let wordSoFar = '';
  let word = -1;
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!;
    if (quote === undefined && /\s/.test(char)) {
      if (wordSoFar !== '') wordEnd?.(wordSoFar);
      wordSoFar = '';
      continue;
    }
    if (wordSoFar === '') word++;
    const opensOrCloses = quote === "'" ? char === "'" : quote === '"' ? char === '"' : char === "'" || char === '"';
    if (quote === "'" || opensOrCloses) {
      if (opensOrCloses) quote = quote === undefined ? (char as '"' | "'") : undefined;
      wordSoFar += char;
      continue;
    }
    const found = visit({ index, char, doubleQuoted: quote === '"', word, wordSoFar });
    if (found !== undefined) return found;
    if (char === '\\') {
      wordSoFar += command.slice(index, index + 2);
      index++;
      continue;
    }
    wordSoFar += char;
  }
  return undefined;
}

/** The operator starting at an unquoted `;`, `&`, `|` or `>` (a file descriptor number in front kept): what a shell would read there. */
const OPERATOR_AT = /^(?:;;?|&&|&>>?|&|\|\||\|&|\||[0-9]*>>|[0-9]*>&[0-9-]*|[0-9]*>)/;

/** find's actions whose argument list a `;` word ends (`find . -exec rm {} ;`): there `;` is find's, on purpose. */
const FIND_ACTION = /^-(?:exec|execdir|ok|okdir)$/;

/**
 * The first list or pipeline operator or output redirection a shell would read in `command`
 * where it is not a word of its own (`echo out; false`, `true ; false`, `a&&b`, `x>f`, `>&2;`):
 * an unquoted, unescaped `;`, `&`, `|` or `>` (POSIX XCU 2.10.1 "Shell Grammar Lexical
 * Conventions": operators end a word wherever they stand). A `;` word closing a find action
 * (`-exec … ;`) is find's argument. Read with the splitter's quoting rules, like
 * {@link shellExpansion}; undefined when there is none.
 */
export function gluedOperator(command: string): string | undefined {
  let openAction = false;
  return walkCommand(
    command,
    (at) => {
      if (at.doubleQuoted || !(at.char === ';' || at.char === '&' || at.char === '|' || at.char === '>')) return undefined;
      // A `;` standing alone after a find action ends that action's arguments: find's own.
      const next = command[at.index + 1];
      if (at.char === ';' && at.wordSoFar === '' && (next === undefined || /\s/.test(next)) && openAction) {
        openAction = false;
        return undefined;
      }
      const digits = /[0-9]*$/.exec(at.wordSoFar)![0];
      const from = at.char === '>' && digits.length === at.wordSoFar.length ? at.index - digits.length : at.index;
      return OPERATOR_AT.exec(command.slice(from))![0];
    },
    (word) => {
      if (FIND_ACTION.test(word)) openAction = true;
    },
  );
}

/** A verifier holding a word only a shell understands ({@link shellOperatorVerifiers}). */
export interface ShellOperatorVerifier {
  /** The `--verify` command as given. */
  readonly command: string;
  /** Its program (the first word), which receives the operator as an argument. */
  readonly program: string;
  /**
   * `operator`: a list or pipeline operator or a redirection as a word (`&&`, `|`, `>out.txt` …),
   * which reaches the program as an argument; `expansion`: a parameter expansion, command
   * substitution or tilde a shell would make ({@link shellExpansion}), which reaches the program
   * as written; `backslash`: a backslash inside double quotes that a shell would drop and the
   * splitter keeps ({@link keptBackslash}).
   */
  readonly kind: 'operator' | 'expansion' | 'backslash';
  /** The first such word (`&&`), for an expansion the expansion itself (`$HOME`), for a backslash the pair (`\$`). */
  readonly operator: string;
  /** For an expansion: true when it is in the program word (`$CMD arg`), false in an argument. */
  readonly inProgram?: boolean;
  /** For an expansion: true when it stands inside double quotes (`"$HOME"`), where a shell expands it too. */
  readonly doubleQuoted?: boolean;
}

/** An expansion a shell would make, where {@link shellExpansion} found it. */
export interface FoundExpansion {
  /** The expansion as shown (`$HOME`, `${X}`, `$(…)`, `` `…` ``, `~`). */
  readonly text: string;
  /** Which word of the command holds it, 0 being the program. */
  readonly word: number;
  /** True when it stands inside double quotes. */
  readonly doubleQuoted: boolean;
}

/** `$NAME`, `$1`, a special parameter, `${…}` or the start of `$(…)` at the start of the text. */
const DOLLAR = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]|\{[^}]*\}?|\()/;

/**
 * The first expansion a shell would make in `command` (POSIX XCU 2.6.1 "Tilde Expansion": `~`
 * starting an unquoted word; 2.6.2 "Parameter Expansion": `$NAME`, `${…}`, `$1`; 2.6.3 "Command
 * Substitution": `$(…)` and backquotes), read with the splitter's own quoting rules: nothing inside
 * single quotes, nothing after a backslash. Inside double quotes a shell expands parameters and
 * command substitutions too (XCU 2.2.3 "Double-Quotes"), so those count, tilde excepted; a verifier
 * splits like a shell but never runs in one, so either way the program gets the text as written.
 * Undefined when there is none.
 */
export function shellExpansion(command: string): FoundExpansion | undefined {
  return walkCommand(command, ({ char, index, doubleQuoted, word, wordSoFar }) => {
    if (char === '~' && wordSoFar === '' && !doubleQuoted) return { text: /^~[A-Za-z0-9._-]*/.exec(command.slice(index))![0], word, doubleQuoted };
    if (char === '`') return { text: '`…`', word, doubleQuoted };
    const found = char === '$' ? DOLLAR.exec(command.slice(index)) : null;
    return found ? { text: found[0] === '$(' ? '$(…)' : found[0], word, doubleQuoted } : undefined;
  });
}

/**
 * The first backslash inside double quotes that a shell removes and the verifier's splitter keeps,
 * with the character after it (`\$` or `` \` ``), and the word holding it. Inside double quotes a
 * shell takes a backslash as an escape before `$`, `` ` ``, `"`, `\` and a newline (POSIX XCU
 * 2.2.3 "Double-Quotes"); the splitter (the `shlex` package, Python's `shlex` in POSIX mode as the
 * BEKO2210/SkillQuarry cordon uses it) keeps it before `$` and `` ` ``. So
 * `"\$HOME"` reaches the program as `\$HOME` where a shell would pass `$HOME`. Undefined when
 * there is none; outside double quotes the two agree.
 */
export function keptBackslash(command: string): { readonly text: string; readonly word: number } | undefined {
  return walkCommand(command, ({ char, index, doubleQuoted, word }) => {
    const next = command[index + 1];
    return char === '\\' && doubleQuoted && (next === '$' || next === '`') ? { text: `\\${next}`, word } : undefined;
  });
}

/** A shell program by its base name (`sh`, `bash`, `/bin/dash`, `zsh` …). */
const SHELL = /(?:^|\/)(?:sh|bash|dash|zsh|ksh|mksh|ash|yash|posh)$/;

/**
 * True when `argv` runs a shell on a script given with `-c` (`sh -c …`, `bash -lc …`): that shell
 * expands what is double-quoted in its script itself, as the user meant, so an expansion inside
 * double quotes there is no fault.
 */
function runsShellScript(argv: readonly string[]): boolean {
  return SHELL.test(argv[0]!) && argv.slice(1).some((word) => /^-[A-Za-z]*c[A-Za-z]*$/.test(word));
}

/**
 * The verifiers of `commands` that hold a shell operator or redirection as a word of their own
 * after splitting (see {@link OPERATOR}), else an expansion ({@link shellExpansion}; one inside
 * double quotes is left alone when the verifier runs a shell script, `sh -c "echo $HOME"`): what
 * the user most likely meant a shell to run. For a warning when the envelope is armed; the
 * verifier still runs as given (the BEKO2210/SkillQuarry cordon runs `true && false` as `true`
 * with two arguments, and so does `cordon check`). Commands that do not split are left to the
 * caller's own validation.
 */
export function shellOperatorVerifiers(commands: readonly string[]): ShellOperatorVerifier[] {
  const out: ShellOperatorVerifier[] = [];
  for (const command of commands) {
    let argv: string[];
    try {
      argv = splitCommand(command);
    } catch {
      continue;
    }
    const operator = argv.slice(1).find((word) => OPERATOR.test(word) || REDIRECTION.test(word)) ?? gluedOperator(command);
    if (operator !== undefined) {
      out.push({ command, program: argv[0]!, kind: 'operator', operator });
      continue;
    }
    const expansion = shellExpansion(command);
    if (expansion !== undefined) {
      if (!(expansion.doubleQuoted && runsShellScript(argv))) out.push({ command, program: argv[0]!, kind: 'expansion', operator: expansion.text, inProgram: expansion.word === 0, doubleQuoted: expansion.doubleQuoted });
      continue;
    }
    const backslash = keptBackslash(command);
    if (backslash !== undefined) out.push({ command, program: argv[0]!, kind: 'backslash', operator: backslash.text, inProgram: backslash.word === 0, doubleQuoted: true });
  }
  return out;
}

/**
 * The warning line for one {@link ShellOperatorVerifier}, escaped for a terminal. An expansion's
 * consequence is worded by where it stands: in the program word the program is looked up under
 * that very name; in an argument the program gets the text as written, not the value.
 */
export function shellOperatorWarning(found: ShellOperatorVerifier): string {
  const wrapped = found.command.includes("'") ? 'wrap the command in `sh -c`' : `write \`sh -c '${terminalText(found.command.trim())}'\``;
  const program = terminalText(found.program);
  if (found.kind === 'backslash') {
    const pair = terminalText(found.operator);
    const plain = `\`${terminalText(found.operator.slice(1))}\` inside single quotes`;
    return `warning: verifier \`${terminalText(found.command)}\` holds \`${pair}\` inside double quotes: a shell would drop that backslash, but verifiers are split without one (Python shlex rules, as the reference cordon) and keep it, so \`${program}\` gets the backslash too; write ${plain} instead`;
  }
  if (found.kind === 'expansion') {
    const text = terminalText(found.operator);
    const where = found.doubleQuoted ? ', even inside double quotes' : '';
    const effect = found.inProgram
      ? `the program is looked up under the name \`${program}\` as written`
      : `\`${program}\` gets the text \`${text}\` literally, not its value`;
    return `warning: verifier \`${terminalText(found.command)}\` holds \`${text}\`, which only a shell expands${where}: verifiers run without a shell, so ${effect}; write the value out, or to have a shell run it, ${wrapped}`;
  }
  return `warning: verifier \`${terminalText(found.command)}\` passes \`${terminalText(found.operator)}\` to \`${program}\` as an argument: verifiers run without a shell, so it means nothing there; to have a shell run it, ${wrapped}`;
}
