import { CordonError, ERROR_CODES } from '../../errors/index.js';

/**
 * Quoting for a cmd.exe command line run as `cmd.exe /d /s /c "<line>"` (with `/s`, cmd.exe
 * drops the first and the last `"` and reads what is between as typed). Two parsers read the
 * line, in this order:
 *
 * 1. cmd.exe (phases from the `cmd /?` help and the documented parser behaviour): it expands
 *    `%name%` first, everywhere, inside quotes too; on a command line (not in a batch file) a name
 *    that is not defined stays as it was. Then, outside double quotes, `^` makes the next
 *    character literal and `& | < > ( )` are operators; inside double quotes all of them are
 *    literal. `!name!` is expanded only with delayed expansion on (`/v:on`, off by default).
 * 2. The program (Microsoft C runtime rules, "Parsing C command-line arguments", which Node's
 *    node.exe and most Windows programs follow): whitespace separates arguments outside `"`; a
 *    `"` starts or ends a quoted part; 2n backslashes before a `"` give n backslashes, 2n+1 give
 *    n and a literal `"`; other backslashes are literal.
 *
 * So each argument is first quoted for the program ({@link msvcQuote}), then every cmd.exe
 * metacharacter in the result, its `"` included, gets a `^` ({@link cmdArgument}): cmd.exe never
 * enters its quoted state in the arguments, removes the carets, and hands the program exactly
 * the C runtime quoting. A `%` gets a `^` too, so every `%…%` pair cmd.exe might expand has a
 * caret in its name, which no variable has, and stays as it was.
 *
 * The program path is cmd.exe's own token, which it finds only when spaces in it are inside
 * real quotes, so it is written `"<path>"` ({@link cmdProgram}); a `%` in it is followed by `""`
 * (end and reopen the quotes), so a `%…%` pair starting there has `"` in its name and is not
 * expanded either, and both cmd.exe and the C runtime drop the empty quotes.
 */

/** cmd.exe characters that a caret must escape outside quotes. */
const CMD_META = /[\^&|<>()%!"]/g;

function refuse(arg: string): void {
  if (/[\r\n\0]/.test(arg)) throw new CordonError(ERROR_CODES.BAD_INPUT, `cannot write ${JSON.stringify(arg)} into a cmd.exe command line: it contains a line break or NUL`, { details: { argument: arg } });
}

/**
 * `arg` quoted for the Microsoft C runtime's argument parser: unchanged when it is non-empty and
 * has no whitespace or `"`, else wrapped in `"` with each `"` escaped by a backslash and the
 * backslashes before a `"` (or the closing quote) doubled.
 */
export function msvcQuote(arg: string): string {
  if (arg !== '' && !/[\s"]/.test(arg)) return arg;
  let out = '"';
  let slashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      slashes++;
      continue;
    }
    out += '\\'.repeat(ch === '"' ? slashes * 2 + 1 : slashes) + ch;
    slashes = 0;
  }
  return out + '\\'.repeat(slashes * 2) + '"';
}

/** One argument (not the program) for a cmd.exe line: {@link msvcQuote}d, then each cmd.exe metacharacter preceded by `^`. */
export function cmdArgument(arg: string): string {
  refuse(arg);
  return msvcQuote(arg).replace(CMD_META, '^$&');
}

/**
 * The program path as cmd.exe's first token: in double quotes, each `%` followed by `""`.
 * @throws CordonError `CORDON_BAD_INPUT` for a path holding `"` (no Windows path does), a line break or NUL.
 */
export function cmdProgram(path: string): string {
  refuse(path);
  if (path.includes('"')) throw new CordonError(ERROR_CODES.BAD_INPUT, `cannot write ${JSON.stringify(path)} as a cmd.exe program: it contains a double quote`, { details: { program: path } });
  return `"${path.replaceAll('%', '%""')}"`;
}

/**
 * The line for `cmd.exe /d /s /c "<line>"` that runs `argv[0]` with exactly the arguments
 * `argv[1..]`, as the C runtime parses them.
 * @throws CordonError `CORDON_BAD_INPUT` when `argv` is empty or an element cannot be written (see {@link cmdProgram}).
 */
export function cmdCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new CordonError(ERROR_CODES.BAD_INPUT, 'a hook command needs a program');
  const [program, ...args] = argv as [string, ...string[]];
  return [cmdProgram(program), ...args.map(cmdArgument)].join(' ');
}
