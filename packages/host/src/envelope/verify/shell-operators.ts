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
  /** The first such word (`&&`, `|`, `>out.txt` …). */
  readonly operator: string;
}

/**
 * The verifiers of `commands` that hold a shell operator or redirection as a word of their own
 * after splitting (see {@link OPERATOR}): what the user most likely meant a shell to run. For a
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
    if (operator !== undefined) out.push({ command, program: argv[0]!, operator });
  }
  return out;
}

/** The warning line for one {@link ShellOperatorVerifier}, escaped for a terminal. */
export function shellOperatorWarning(found: ShellOperatorVerifier): string {
  const wrapped = found.command.includes("'") ? 'wrap the command in `sh -c`' : `write \`sh -c '${terminalText(found.command.trim())}'\``;
  return `warning: verifier \`${terminalText(found.command)}\` passes \`${terminalText(found.operator)}\` to \`${terminalText(found.program)}\` as an argument: verifiers run without a shell, so it means nothing there; to have a shell run it, ${wrapped}`;
}
