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

/** A verifier holding a word only a shell understands ({@link shellOperatorVerifiers}). */
export interface ShellOperatorVerifier {
  /** The `--verify` command as given. */
  readonly command: string;
  /** Its program (the first word), which receives the operator as an argument. */
  readonly program: string;
  /**
   * `operator`: a list or pipeline operator or a redirection as a word (`&&`, `|`, `>out.txt` …),
   * which reaches the program as an argument; `expansion`: a parameter expansion, command
   * substitution or tilde outside quotes (`$HOME`, `${HOME}`, `$(pwd)`, `` `pwd` ``, `~`), which
   * reaches it as written.
   */
  readonly kind: 'operator' | 'expansion';
  /** The first such word (`&&`), or for an expansion the expansion itself (`$HOME`). */
  readonly operator: string;
}

/**
 * The first expansion a shell would make in `command` outside quotes (POSIX XCU 2.6.1 "Tilde
 * Expansion": `~` starting a word; 2.6.2 "Parameter Expansion": `$NAME`, `${…}`, `$1`; 2.6.3
 * "Command Substitution": `$(…)` and backquotes), read with the splitter's own quoting rules:
 * nothing inside single quotes, nothing after a backslash. Inside double quotes a shell would
 * expand too, but a quoted word is most often meant for a shell the verifier runs itself
 * (`bash -lc "echo $HOME"`), so only unquoted ones count. Undefined when there is none.
 */
export function shellExpansion(command: string): string | undefined {
  let quote: '"' | "'" | undefined;
  let wordStart = true;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    const atStart = wordStart;
    wordStart = false;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (/\s/.test(c)) {
      wordStart = true;
      continue;
    }
    if (c === '~' && atStart) return /^~[A-Za-z0-9._-]*/.exec(command.slice(i))![0];
    if (c === '`') return '`…`';
    if (c === '$') {
      const rest = command.slice(i);
      const found = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]|\{[^}]*\}?|\()/.exec(rest);
      if (found) return found[0] === '$(' ? '$(…)' : found[0];
    }
  }
  return undefined;
}

/**
 * The verifiers of `commands` that hold a shell operator or redirection as a word of their own
 * after splitting (see {@link OPERATOR}), else an unquoted expansion ({@link shellExpansion}):
 * what the user most likely meant a shell to run. For a
 * warning when the envelope is armed; the verifier still runs as given (the BEKO2210/SkillQuarry
 * cordon runs `true && false` as `true` with two arguments, and so does `cordon check`). Commands
 * that do not split are left to the caller's own validation.
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
    const operator = argv.slice(1).find((word) => OPERATOR.test(word) || REDIRECTION.test(word));
    const expansion = operator === undefined ? shellExpansion(command) : undefined;
    if (operator !== undefined) out.push({ command, program: argv[0]!, kind: 'operator', operator });
    else if (expansion !== undefined) out.push({ command, program: argv[0]!, kind: 'expansion', operator: expansion });
  }
  return out;
}

/** The warning line for one {@link ShellOperatorVerifier}, escaped for a terminal. */
export function shellOperatorWarning(found: ShellOperatorVerifier): string {
  const wrapped = found.command.includes("'") ? 'wrap the command in `sh -c`' : `write \`sh -c '${terminalText(found.command.trim())}'\``;
  if (found.kind === 'expansion') {
    return `warning: verifier \`${terminalText(found.command)}\` holds \`${terminalText(found.operator)}\`, which only a shell expands: verifiers run without a shell, so it reaches \`${terminalText(found.program)}\` as written (a program is looked for under that very name); write the value out, or to have a shell run it, ${wrapped}`;
  }
  return `warning: verifier \`${terminalText(found.command)}\` passes \`${terminalText(found.operator)}\` to \`${terminalText(found.program)}\` as an argument: verifiers run without a shell, so it means nothing there; to have a shell run it, ${wrapped}`;
}
