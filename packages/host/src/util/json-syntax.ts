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

/**
 * `JSON.parse(text)`; when `text` is not JSON, throws a `SyntaxError` whose message says what is
 * wrong and where in the words a user can find it in an editor: `comma expected at line 3,
 * column 1`, instead of V8's `… in JSON at position 21` (whose form differs between Node
 * versions). The place is the first error jsonc-parser finds with comments and trailing commas
 * refused (strict JSON); when it finds none where `JSON.parse` did (a byte order mark, say),
 * V8's own message is kept. Callers put the file's name in front.
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(jsonSyntaxProblem(text) ?? (error as Error).message);
  }
}

/** What {@link parseJsonText} says is wrong with `text`, or undefined when jsonc-parser finds nothing. */
function jsonSyntaxProblem(text: string): string | undefined {
  const errors: import('jsonc-parser').ParseError[] = [];
  const parser = jsonc();
  parser.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return undefined;
  return `${jsonErrorWords(parser.printParseErrorCode(first.error))} at ${lineColumn(text, first.offset)}`;
}
