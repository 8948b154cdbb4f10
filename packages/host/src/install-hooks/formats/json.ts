import type { ConfigDocument, ConfigPath } from '@cordon/plugin-api';
import { findNodeAtLocation, parseTree, type FormattingOptions, type Node, type ParseError } from 'jsonc-parser';
import { kindWords, notAList, unparseable } from './unparseable.js';
import { BYTE_ORDER_MARK, jsonSyntaxProblem, repeatedKey, repeatedKeyWords } from '../../util/json-syntax.js';


/** Indentation unit and line ending of an existing file (two spaces and `\n` for a new one). */
function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return indent.startsWith('\t') ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/**
 * The value of a syntax-tree node as `JSON.parse` would give it: every key an own property, a
 * `"__proto__"` key included (jsonc-parser's own `parse` assigns it, which sets the prototype and
 * loses the key); the last of duplicate keys wins.
 */
function plainValue(node: Node): unknown {
  if (node.type === 'array') return (node.children ?? []).map(plainValue);
  if (node.type !== 'object') return node.value;
  const object: Record<string, unknown> = {};
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (!key || !value) continue;
    Object.defineProperty(object, String(key.value), { value: plainValue(value), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/**
 * A JSON (or, with `comments`, JSONC) document edited in place through jsonc-parser's syntax
 * tree: a value is inserted as new text laid out in the file's own indentation after its last
 * sibling, and a removal cuts exactly the member and its separator, so comments, key order, the
 * layout of every untouched member (one-line objects stay one line) and everything else stay
 * byte for byte, and an insertion undone by a removal gives back the original text. A missing or blank file starts
 * as `{}`; a file that does not parse, or whose root is not an object, is refused
 * (`CORDON_CONFIG_UNPARSEABLE`, what is wrong in words: util/json-syntax.ts `jsonSyntaxProblem`).
 * A leading byte order mark is refused as such, unless `bom` (the agent reads the file with one:
 * Claude Code does): then it is read past and kept in the text written.
 */
export function jsonDocument(path: string, text: string | undefined, options: { comments?: boolean; bom?: boolean } = {}): ConfigDocument {
  const mark = options.bom === true && text?.startsWith(BYTE_ORDER_MARK) ? BYTE_ORDER_MARK : '';
  const body = text?.slice(mark.length);
  let current = body === undefined || body.trim() === '' ? '{}\n' : body;
  const parseOptions = { allowTrailingComma: options.comments === true, disallowComments: options.comments !== true, allowEmptyContent: false };
  const read = (source: string): unknown => {
    const errors: ParseError[] = [];
    const tree = parseTree(source, errors, parseOptions);
    const value = tree ? plainValue(tree) : undefined;
    const first = errors[0];
    if (first) throw unparseable(path, options.comments ? 'JSON with comments' : 'JSON', jsonSyntaxProblem(source, { comments: options.comments }) ?? `error ${first.error} at offset ${first.offset}`);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw unparseable(path, 'JSON', `the top level holds ${kindWords(value)}, not an object`, 'shape');
    // A key given twice: the agent (JSON.parse) reads only the last, while an edit could land in
    // the first, where it has no effect (a hook "installed" that never runs).
    const repeated = repeatedKey(source, value);
    if (repeated) throw unparseable(path, options.comments ? 'JSON with comments' : 'JSON', repeatedKeyWords(repeated), 'ambiguous');
    return value;
  };
  let value = read(current);
  const fmt = detectFormatting(current);
  const eol = fmt.eol ?? '\n';
  const unit = fmt.insertSpaces ? ' '.repeat(fmt.tabSize ?? 2) : '\t';
  /** `v` as JSON laid out from `indent`; `undefined` indent means one line (in a one-line container). */
  const pretty = (v: unknown, indent: string | undefined): string => (indent === undefined ? JSON.stringify(v) : JSON.stringify(v, null, unit).split('\n').join(eol + indent));
  const splice = (at: number, length: number, content: string): void => {
    current = current.slice(0, at) + content + current.slice(at + length);
    value = read(current);
  };
  const node = (p: ConfigPath): Node | undefined => findNodeAtLocation(parseTree(current, [], parseOptions)!, [...p]);

  /** Adds `member` (a `"key": value` property, or an array element) to `container`, after its last child. */
  const insertInto = (container: Node, member: (indent: string | undefined) => string): void => {
    const open = container.offset;
    const close = container.offset + container.length - 1;
    const children = container.children ?? [];
    const last = children[children.length - 1];
    if (!last) {
      const indent = lineIndent(current, open);
      splice(open + 1, close - open - 1, `${eol}${indent}${unit}${member(indent + unit)}${eol}${indent}`);
    } else if (!current.slice(open, close).includes('\n')) {
      splice(last.offset + last.length, 0, `, ${member(undefined)}`);
    } else {
      const indent = lineIndent(current, last.offset);
      splice(last.offset + last.length, 0, `,${eol}${indent}${member(indent)}`);
    }
  };

  const set = (p: ConfigPath, v: unknown): void => {
    const existing = node(p);
    if (existing) {
      splice(existing.offset, existing.length, pretty(v, lineIndent(current, existing.offset)));
      return;
    }
    // Insert at the deepest object that exists, as a nested object holding `v`.
    let depth = p.length - 1;
    while (depth > 0 && !node(p.slice(0, depth))) depth--;
    const parent = depth === 0 ? parseTree(current, [], parseOptions)! : node(p.slice(0, depth))!;
    if (parent.type !== 'object') throw unparseable(path, 'JSON', `${depth === 0 ? 'the top level' : p.slice(0, depth).join('.')} holds ${kindWords(plainValue(parent))}, not an object`, 'shape');
    let nested: unknown = v;
    for (let i = p.length - 1; i > depth; i--) nested = { [String(p[i])]: nested };
    insertInto(parent, (indent) => `${JSON.stringify(String(p[depth]))}: ${pretty(nested, indent)}`);
  };

  const at = (p: ConfigPath): unknown => p.reduce<unknown>((n, key) => (n && typeof n === 'object' ? (n as Record<string | number, unknown>)[key] : undefined), value);
  return {
    get value() {
      return value;
    },
    set,
    append: (p, item) => {
      const array = node(p);
      if (array?.type === 'array') insertInto(array, (indent) => pretty(item, indent));
      else {
        const found = at(p);
        if (found !== undefined && found !== null) throw notAList(path, p.join('.'), found);
        set(p, [item]);
      }
    },
    remove: (p) => {
      if (at(p) === undefined) return;
      const target = node(p)!;
      // An object member is its property node (`"key": value`); an array element is the value itself.
      const member = target.parent?.type === 'property' ? target.parent : target;
      const container = member.parent!;
      const siblings = container.children!;
      const i = siblings.indexOf(member);
      if (siblings.length === 1) splice(container.offset + 1, container.length - 2, '');
      else if (i === siblings.length - 1) {
        const prev = siblings[i - 1]!;
        splice(prev.offset + prev.length, member.offset + member.length - (prev.offset + prev.length), '');
      } else splice(member.offset, siblings[i + 1]!.offset - member.offset, '');
    },
    toString: () => mark + current,
  };
}
