import { CordonError, ERROR_CODES } from '../../errors/index.js';

/**
 * Quoting for PowerShell command text (`powershell.exe -Command <text>`, `pwsh -Command <text>`),
 * the shell Claude Code uses for hooks with `"shell": "powershell"` and that Codex and Gemini CLI
 * run hook commands through on Windows.
 *
 * Rules (Microsoft, about_Quoting_Rules and about_Parsing):
 * - In a single-quoted string every character is literal (`$`, `` ` ``, `"`, `%`, `&`, `^`,
 *   `(`, `)`, `;` included) except the single quote itself, written twice. PowerShell counts
 *   the typographic quotes U+2018, U+2019, U+201A and U+201B as single quotes too, so each of
 *   them is doubled as well.
 * - A quoted string at the start of a statement is a value, not a command: the call operator
 *   `&` makes PowerShell run it (`& 'C:\Program Files\nodejs\node.exe' …`).
 * - Bare words made of letters, digits, `_`, `.` and `-` that start with a letter or `_`
 *   (`--agent` too), and drive-absolute paths of those characters, are passed as they are;
 *   anything else is quoted (a word starting with a digit may be read as a number).
 *
 * PowerShell then builds the program's command line itself, quoting arguments that hold spaces
 * with `"`. Windows PowerShell 5.1 does not escape a `"` inside an argument nor double a
 * trailing backslash (PowerShell 7.3+ does, `$PSNativeCommandArgumentPassing`), so arguments
 * holding `"` (never in a Windows path) are refused; a trailing `\` is refused for the same
 * reason, and line breaks and NUL because agents keep commands on one line.
 */

/** Typographic single quotes PowerShell treats like `'` (about_Quoting_Rules). */
const SINGLE_QUOTES = /['\u2018\u2019\u201A\u201B]/g;

/**
 * A word PowerShell passes as it is in argument mode (no quoting needed). It starts with a letter
 * or `_`: a bare word that starts with a digit can be a number literal (`1e3`, `0x10`, `1kb`),
 * which PowerShell would pass as the number's text (`1000`, `16`, `1024`).
 */
const PLAIN_ARGUMENT = /^[A-Za-z_][A-Za-z0-9_.\-]*$|^--?[A-Za-z][A-Za-z0-9_\-]*$/;

/** A drive-absolute path PowerShell and cmd.exe both run unquoted as a command. */
const PLAIN_PROGRAM = /^[A-Za-z]:[\\/][A-Za-z0-9_.\-\\/]*$/;

/** A plain path argument (no quoting needed in PowerShell nor cmd.exe). */
const PLAIN_PATH = /^[A-Za-z]:[\\/][A-Za-z0-9_.\-\\/]*[A-Za-z0-9_.\-]$|^\/[A-Za-z0-9_.\-/]*[A-Za-z0-9_.\-]$/;

function refuse(arg: string): void {
  const why = /[\r\n\0]/.test(arg) ? 'a line break or NUL' : arg.includes('"') ? 'a double quote' : /\\$/.test(arg) ? 'a trailing backslash' : undefined;
  if (why) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `cannot write ${JSON.stringify(arg)} into a PowerShell hook command: it contains ${why}, which Windows PowerShell 5.1 does not pass on to the program intact`, { details: { argument: arg } });
  }
}

/** `arg` as a PowerShell single-quoted string (`'…'`, each single quote doubled). */
export function powershellQuote(arg: string): string {
  return `'${arg.replace(SINGLE_QUOTES, (q) => q + q)}'`;
}

/** `arg` bare when PowerShell passes it as it is, else {@link powershellQuote}d. */
export function powershellArgument(arg: string): string {
  return PLAIN_ARGUMENT.test(arg) || PLAIN_PATH.test(arg) ? arg : powershellQuote(arg);
}

/**
 * PowerShell command text that runs `argv[0]` with the arguments `argv[1..]`: bare words when
 * every element is plain (then cmd.exe reads the same text the same way), else
 * `& '<program>' <arguments>`.
 * @throws CordonError `CORDON_BAD_INPUT` naming the element when one holds `"`, a line break,
 *   NUL or a trailing `\` (see the module comment); or when `argv` is empty.
 */
export function powershellCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new CordonError(ERROR_CODES.BAD_INPUT, 'a hook command needs a program');
  for (const arg of argv) refuse(arg);
  const [program, ...args] = argv as [string, ...string[]];
  const rest = args.map(powershellArgument);
  if (PLAIN_PROGRAM.test(program) && rest.every((a, i) => a === args[i])) return [program, ...rest].join(' ');
  return ['&', powershellQuote(program), ...rest].join(' ');
}
