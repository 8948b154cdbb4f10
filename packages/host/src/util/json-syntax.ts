import { lazyPackage } from './lazy-package.js';

/** jsonc-parser, loaded only on the error path: a file that parses never needs it. */
const jsonc = lazyPackage<typeof import('jsonc-parser')>('jsonc-parser');

/**
 * Line and column (both 1-based, the column in UTF-16 units as editors count them) of the
 * character `offset` of `text`: `line 3, column 1`. A `\r\n` ends a line as `\n` does.
 */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/**
 * jsonc-parser's error code as words (`CommaExpected` → `comma expected`), for the messages that
 * say what is wrong with a user's file.
 */
export function jsonErrorWords(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** U+FEFF, the byte order mark some Windows editors put at the start of a UTF-8 file. */
export const BYTE_ORDER_MARK = '\uFEFF';

/**
 * What a text starting with {@link BYTE_ORDER_MARK} is told where the reader takes no mark
 * (`JSON.parse`, Gemini CLI, Codex): jsonc-parser calls it an invalid symbol at line 1, column 1,
 * which does not say what to do.
 */
export const BOM_PROBLEM = 'starts with a byte order mark (U+FEFF); save it as UTF-8 without BOM';

/**
 * `JSON.parse(text)`; when `text` is not JSON, throws a `SyntaxError` whose message says what is
 * wrong and where in the words a user can find it in an editor ({@link jsonSyntaxProblem}:
 * `comma expected at line 3, column 1`), instead of V8's `… in JSON at position 21` (whose form
 * differs between Node versions); where jsonc-parser finds nothing wrong, V8's own message is
 * kept. Callers put the file's name in front.
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(jsonSyntaxProblem(text) ?? (error as Error).message);
  }
}

/**
 * What is wrong with `text` as JSON, or undefined when jsonc-parser finds nothing: a leading byte
 * order mark is {@link BOM_PROBLEM}; otherwise the first error jsonc-parser finds, in words, and
 * where (`value expected at line 2, column 1`). Strict JSON unless `comments` (JSONC: comments
 * and trailing commas allowed, as Gemini CLI reads its settings).
 */
export function jsonSyntaxProblem(text: string, options: { readonly comments?: boolean } = {}): string | undefined {
  if (text.startsWith(BYTE_ORDER_MARK)) return BOM_PROBLEM;
  const errors: import('jsonc-parser').ParseError[] = [];
  const parser = jsonc();
  const lenient = options.comments === true;
  parser.parse(text, errors, { disallowComments: !lenient, allowTrailingComma: lenient, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return undefined;
  return `${jsonErrorWords(parser.printParseErrorCode(first.error))} at ${lineColumn(text, first.offset)}`;
}
