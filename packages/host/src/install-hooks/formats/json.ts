import type { ConfigDocument, ConfigPath } from '@cordon/plugin-api';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from 'jsonc-parser';
import { unparseable } from './unparseable.js';

/** Line and column (1-based) of a character offset, for error messages. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/** Indentation and line ending of an existing file (two spaces and `\n` for a new one). */
function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

/**
 * A JSON (or, with `comments`, JSONC) document edited in place with jsonc-parser's `modify`:
 * only the touched members are rewritten, so comments, key order, indentation and everything
 * else stay byte for byte. A missing or blank file starts as `{}`; a file that does not parse, or
 * whose root is not an object, is refused (`CORDON_CONFIG_UNPARSEABLE`).
 */
export function jsonDocument(path: string, text: string | undefined, options: { comments?: boolean } = {}): ConfigDocument {
  let current = text === undefined || text.trim() === '' ? '{}\n' : text;
  const read = (source: string): unknown => {
    const errors: ParseError[] = [];
    const value = parse(source, errors, { allowTrailingComma: options.comments === true, disallowComments: options.comments !== true, allowEmptyContent: false });
    const first = errors[0];
    if (first) throw unparseable(path, options.comments ? 'JSON with comments' : 'JSON', `${printParseErrorCode(first.error)} at ${position(source, first.offset)}`);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw unparseable(path, 'JSON', 'the top level is not an object');
    return value;
  };
  let value = read(current);
  const formattingOptions = detectFormatting(current);
  const edit = (p: ConfigPath, v: unknown, arrayInsertion = false): void => {
    current = applyEdits(current, modify(current, [...p], v, { formattingOptions, isArrayInsertion: arrayInsertion }));
    value = read(current);
  };
  const at = (p: ConfigPath): unknown => p.reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string | number, unknown>)[key] : undefined), value);
  return {
    get value() {
      return value;
    },
    set: (p, v) => edit(p, v),
    append: (p, item) => {
      const existing = at(p);
      if (Array.isArray(existing)) edit([...p, -1], item, true);
      else edit(p, [item]);
    },
    remove: (p) => {
      if (at(p) !== undefined) edit(p, undefined);
    },
    toString: () => current,
  };
}
