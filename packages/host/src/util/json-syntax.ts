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

/** A key an object of a JSON text gives twice ({@link repeatedKey}). */
export interface RepeatedKey {
  readonly key: string;
  /** Where the key is first given and where again (`line 2, column 3`), as {@link lineColumn} counts. */
  readonly first: string;
  readonly again: string;
}

/**
 * The first key that one object of the JSON text `text` gives twice, or undefined; `value` is
 * `JSON.parse(text)`, which keeps the last value of a repeated key without a word (RFC 8259 §4:
 * names SHOULD be unique, and implementations differ), so a file a user writes can say a thing
 * twice and mean the first. Cheap when no key repeats: the text's colons outside strings (one per
 * member) are counted against the keys of the parsed value; jsonc-parser finds the key and its
 * places only when they differ.
 */
export function repeatedKey(text: string, value: unknown): RepeatedKey | undefined {
  if (membersIn(text) === keysIn(value)) return undefined;
  let found: RepeatedKey | undefined;
  const visit = (node: import('jsonc-parser').Node | undefined): void => {
    if (node === undefined || found !== undefined) return;
    if (node.type === 'object') {
      const seen = new Map<string, number>();
      for (const property of node.children ?? []) {
        const name = property.children?.[0];
        if (name === undefined || typeof name.value !== 'string') continue;
        const at = seen.get(name.value);
        if (at !== undefined) {
          found = { key: name.value, first: lineColumn(text, at), again: lineColumn(text, name.offset) };
          return;
        }
        seen.set(name.value, name.offset);
      }
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(jsonc().parseTree(text));
  return found;
}

/** Colons outside strings in the JSON text `text`: one per object member. */
function membersIn(text: string): number {
  let count = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) count++;
  }
  return count;
}

/** Keys of every object in the parsed JSON `value`. */
function keysIn(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + keysIn(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  return Object.values(value).reduce((n: number, v) => n + keysIn(v), Object.keys(value).length);
}

/**
 * The refusal's words for a {@link repeatedKey} (`"allow" is given twice, at line 2, column 3
 * and again at line 5, column 3; JSON keeps only the last: give each key once`), for the callers
 * that refuse a user's file with one (`.cordon.json`, `analyze --rules`) to put its name in front.
 */
export function repeatedKeyWords(found: RepeatedKey): string {
  return `${JSON.stringify(found.key)} is given twice, at ${found.first} and again at ${found.again}; JSON keeps only the last: give each key once`;
}
