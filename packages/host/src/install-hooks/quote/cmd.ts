import { CordonError, ERROR_CODES } from '../../errors/index.js';

/**
 * Quoting for a cmd.exe command line run as `cmd.exe /d /s /c "<line>"` (with `/s`, cmd.exe
 * drops the first and the last `"` and reads what is between as typed). Two parsers read the
 * line, in this order:
 *
 * 1. cmd.exe (the `cmd /?` help; the parser phases as documented by the community reference
 *    "How does the Windows Command Interpreter parse scripts", ss64 and Stack Overflow 4094699):
 *    it expands `%name%` first, everywhere, inside quotes too; on a command line (not in a batch
 *    file) a name that is not defined stays as it was. Then, outside double quotes, `^` makes the
 *    next character literal and `& | < > ( )` are operators; inside double quotes they are all
 *    literal. `!name!` is expanded only with delayed expansion on (`/v:on`, off by default).
 * 2. The program (Microsoft C runtime rules, "Parsing C command-line arguments", which node.exe
 *    and most Windows programs follow): whitespace separates arguments outside `"`; a `"` starts
 *    or ends a quoted part, except that `""` inside a quoted part is a literal `"`; 2n
 *    backslashes before a `"` give n backslashes, 2n+1 give n and a literal `"`; other
 *    backslashes are literal.
 *
 * So each argument is first written for the C runtime ({@link msvcArgument}), quoting only its
 * runs of whitespace, then every cmd.exe metacharacter of the result, its `"` included, gets a
 * `^` ({@link cmdArgument}): cmd.exe never enters its quoted state in the arguments, removes
 * the carets, and hands the program exactly the C runtime text. Against `%` expansion each `%`
 * is followed by a `"` in the line: the quote of the whitespace run or the `\"` of a quote that
 * follows it, else an empty quoted part `""` that the C runtime drops. Every `%…%` pair cmd.exe
 * could expand then has a `"` in its name (and a `^` before it), which no variable has, so it
 * stays as it was; this holds whether cmd.exe removes carets before expanding or after (Wine's
 * cmd.exe does it before).
 *
 * The program path is cmd.exe's own token, which it finds only when spaces in it are inside
 * real quotes, so it is written `"<path>"` ({@link cmdProgram}); each `%` in it is followed by
 * `""` (end and reopen the quotes), so a `%…%` pair starting there has `"` in its name too, and
 * cmd.exe and the C runtime both drop the empty quotes.
 */

/** cmd.exe characters that a caret must escape outside quotes. */
const CMD_META = /[\^&|<>()%!"]/g;

function refuse(arg: string): void {
  if (/[\r\n\0]/.test(arg)) throw new CordonError(ERROR_CODES.BAD_INPUT, `cannot write ${JSON.stringify(arg)} into a cmd.exe command line: it contains a line break or NUL`, { details: { argument: arg } });
}

/**
 * `arg` written for the Microsoft C runtime's argument parser, with a `"` after every `%` (see
 * the module comment): `""` for the empty argument; each run of spaces and tabs in `"…"`; each
 * `"` as `\"`; the backslashes before a `"` doubled (plus one before a literal `"`); a `%` not
 * followed by whitespace or `"` followed by `""`. Everything else is copied.
 */
export function msvcArgument(arg: string): string {
  if (arg === '') return '""';
  const chars = [...arg];
  let out = '';
  let slashes = 0;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\') {
      slashes++;
      continue;
    }
    if (ch === '"') out += '\\'.repeat(slashes * 2 + 1) + '"';
    else if (ch === ' ' || ch === '\t') {
      let run = ch;
      while (chars[i + 1] === ' ' || chars[i + 1] === '\t') run += chars[++i];
      out += '\\'.repeat(slashes * 2) + `"${run}"`;
    } else {
      const next = chars[i + 1];
      out += '\\'.repeat(slashes) + ch + (ch === '%' && next !== ' ' && next !== '\t' && next !== '"' ? '""' : '');
    }
    slashes = 0;
  }
  return out + '\\'.repeat(slashes);
}

/** One argument (not the program) for a cmd.exe line: {@link msvcArgument}, then each cmd.exe metacharacter preceded by `^`. */
export function cmdArgument(arg: string): string {
  refuse(arg);
  return msvcArgument(arg).replace(CMD_META, '^$&');
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
