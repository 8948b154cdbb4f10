import type { ConfigDocument, ConfigPath } from '@cordon/plugin-api';
import { isAlias, isCollection, isMap, isScalar, isSeq, parseDocument, stringify, visit, type Document, type Node as YamlNode, type Pair } from 'yaml';
import { isDeepStrictEqual } from 'node:util';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { kindWords, notAList, unparseable } from './unparseable.js';
import { BYTE_ORDER_MARK } from '../../util/json-syntax.js';

type Json = unknown;

/** Offset of the start of the line holding `offset`. */
function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Offset just past the line ending of the line holding `offset - 1` (a block node's end already is; a last line without one ends the text). */
function lineEndAfter(text: string, end: number): number {
  if (end > 0 && text[end - 1] === '\n') return end;
  const nl = text.indexOf('\n', end);
  return nl < 0 ? text.length : nl + 1;
}

/** The leading whitespace of the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];
}

/** `value` written as block YAML (two-space indentation), each line after the first prefixed with `indent`, lines joined by `eol`. */
function block(value: Json, indent: string, eol: string): string {
  return stringify(value, { indent: 2, lineWidth: 0 })
    .replace(/\n$/, '')
    .split('\n')
    .map((line, i) => (i === 0 ? line : indent + line))
    .join(eol);
}

/** Deep copy with `path` changed by `edit` applied to its parent container. */
function edited(value: Json, path: ConfigPath, edit: (parent: Record<string | number, Json> | Json[], key: string | number) => void): Json {
  const copy = structuredClone(value) as Record<string | number, Json>;
  let node: Record<string | number, Json> = copy;
  for (const key of path.slice(0, -1)) {
    if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object') node[key] = {};
    node = node[key] as Record<string | number, Json>;
  }
  edit(node, path[path.length - 1]!);
  return copy;
}

/**
 * The first key given twice in one mapping of `doc` (parsed from `text`), in words naming it and
 * both lines, or `undefined`: Hermes (PyYAML) keeps the last, where an edit could land in the
 * first. Scalar keys compared by value, one pass with a set per mapping; a merge key (`<<`) may
 * repeat.
 */
function repeatedYamlKey(doc: Document, text: string): string | undefined {
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  let found: string | undefined;
  visit(doc, {
    Map(_key, map) {
      const seen = new Map<string, number>();
      for (const pair of map.items) {
        const key = pair.key;
        if (!isScalar(key) || key.value === '<<') continue;
        const name = String(key.value);
        const at = key.range?.[0] ?? 0;
        const earlier = seen.get(name);
        if (earlier !== undefined) {
          found = `${JSON.stringify(name)} is given twice in one mapping, at line ${lineOf(earlier)} and again at line ${lineOf(at)}; Hermes reads only the last: give each key once`;
          return visit.BREAK;
        }
        seen.set(name, at);
      }
      return undefined;
    },
  });
  return found;
}

/**
 * A YAML document edited by splicing text, so only cordon's own lines change: removing an entry
 * cuts exactly its lines, appending inserts new lines after the last sibling in the indentation
 * and line endings (CRLF kept) the file already uses, an empty flow collection (`hooks: {}`)
 * becomes a block one in place; every other byte — comments, spacing before them, quoting,
 * blank lines — stays as it was (issue: `x   # c` was rewritten to `x # c`, CRLF became LF).
 * After each edit the text is parsed again and compared with the expected data (the original
 * plus exactly that edit); a difference refuses the edit (`CORDON_CONFIG_EDIT`) instead of
 * writing a file Hermes would read differently. A missing or blank file starts empty; a file
 * with YAML errors, or whose root is not a mapping, is refused (`CORDON_CONFIG_UNPARSEABLE`). A
 * leading byte order mark is read past and kept, as PyYAML reads past it.
 */
export function yamlDocument(path: string, text: string | undefined): ConfigDocument {
  // A leading byte order mark (some Windows editors save one): PyYAML, and so Hermes, reads past
  // it; edited in place it would stand before the first key cordon's lines copy their
  // indentation from. Edited without it and kept in the text written.
  const mark = text?.startsWith(BYTE_ORDER_MARK) ? BYTE_ORDER_MARK : '';
  let current = (text ?? '').slice(mark.length);
  // Keys given twice are found by repeatedYamlKey, in one pass: the yaml library's own check
  // (uniqueKeys) compares every key of a mapping with every other, seconds per parse of a 1 MiB
  // file, and each edit parses the text again.
  const load = (source: string): Document => parseDocument(source, { keepSourceTokens: false, uniqueKeys: false });
  let doc = load(current);
  const repeated = doc.errors.length === 0 ? repeatedYamlKey(doc, current) : undefined;
  if (repeated) throw unparseable(path, 'YAML', repeated, 'ambiguous');
  const first = doc.errors[0];
  // The yaml library's own words for this one name its API (`YAML.parseAllDocuments()`).
  if (first) throw unparseable(path, 'YAML', first.code === 'MULTIPLE_DOCS' ? `it holds more than one document (the second starts at line ${first.linePos?.[0]?.line ?? '?'}), and a config file is one` : first.message.split('\n')[0]!);
  let value: Json = doc.toJS() ?? {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw unparseable(path, 'YAML', `the top level holds ${kindWords(value)}, not a mapping`, 'shape');
  const eol = current.includes('\r\n') ? '\r\n' : '\n';

  const refuse = (what: string, why: string): CordonError =>
    new CordonError(ERROR_CODES.CONFIG_EDIT, `${path}: ${what} cannot be done by a surgical edit (${why}); the file is left untouched`, { details: { path } });

  const commit = (next: string, expected: Json, what: string): void => {
    const parsed = load(next);
    if (parsed.errors.length) throw refuse(what, `it would not leave valid YAML: ${parsed.errors[0]!.message.split('\n')[0]}`);
    if (!isDeepStrictEqual(parsed.toJS() ?? {}, expected)) throw refuse(what, 'the layout around it is one cordon does not rewrite');
    current = next;
    doc = parsed;
    value = expected;
  };
  const splice = (from: number, to: number, insert: string): string => current.slice(0, from) + insert + current.slice(to);
  const nodeAt = (p: ConfigPath): YamlNode | undefined => (p.length === 0 ? (doc.contents as YamlNode | null) ?? undefined : (doc.getIn([...p], true) as YamlNode | undefined));
  const label = (p: ConfigPath): string => p.join('.') || 'the document';

  /** Adds `key: v` to the map at `p` (which exists). */
  const addToMap = (p: ConfigPath, key: string, v: Json, expected: Json, what: string): void => {
    const map = nodeAt(p);
    if (!map && p.length === 0) {
      // An empty document (or comments only): the new key goes at the end.
      const head = current === '' || current.endsWith('\n') ? current : current + eol;
      commit(head + `${block({ [key]: v }, '', eol)}${eol}`, expected, what);
      return;
    }
    if (map && p.length > 0 && isScalar(map) && map.value === null) {
      // `hooks:` with nothing after it (its events commented out, as Hermes' example config has
      // them), `hooks: ~`, `hooks: null`: no mapping yet, as Hermes reads it; the new one goes
      // under the key, one level deeper, in place of the empty value.
      const [start, end] = map.range!;
      let from = start;
      while (from > 0 && (current[from - 1] === ' ' || current[from - 1] === '\t')) from--;
      const indent = indentAt(current, from) + '  ';
      commit(splice(from, end, `${eol}${indent}${block({ [key]: v }, indent, eol)}`), expected, what);
      return;
    }
    if (!map || !isMap(map)) throw refuse(what, `${label(p)} is not a mapping`);
    if (map.flow) {
      if (map.items.length > 0) throw refuse(what, `${label(p)} is a non-empty flow mapping`);
      // `hooks: {}` becomes a block mapping under its key, one level deeper (a root `{}` becomes the block itself).
      const [start, end] = map.range!;
      if (p.length === 0) {
        commit(splice(start, end, block({ [key]: v }, '', eol)), expected, what);
        return;
      }
      let from = start;
      while (from > 0 && (current[from - 1] === ' ' || current[from - 1] === '\t')) from--;
      const indent = indentAt(current, start) + '  ';
      commit(splice(from, end, `${eol}${indent}${block({ [key]: v }, indent, eol)}`), expected, what);
      return;
    }
    const firstKey = (map.items[0] as Pair<YamlNode>).key as YamlNode;
    const last = map.items[map.items.length - 1] as Pair<YamlNode, YamlNode | null>;
    const indent = current.slice(lineStart(current, firstKey.range![0]), firstKey.range![0]);
    const at = lineEndAfter(current, (last.value ?? last.key)!.range![1]);
    const lead = at === current.length && at > 0 && !current.endsWith('\n') ? eol : '';
    commit(splice(at, at, `${lead}${indent}${block({ [key]: v }, indent, eol)}${eol}`), expected, what);
  };

  const set = (p: ConfigPath, v: Json): void => {
    const what = `setting ${label(p)}`;
    const expected = edited(value, p, (parent, key) => void ((parent as Record<string | number, Json>)[key] = v));
    const existing = nodeAt(p);
    if (existing) {
      if (!isScalar(existing) && !(isCollection(existing) && existing.flow)) throw refuse(what, `${label(p)} is a block collection`);
      const [start, end] = existing.range!;
      // An empty value (`event:` with nothing after it) has no text to replace: a space keeps the new one apart from the colon.
      commit(splice(start, end, `${start === end ? ' ' : ''}${JSON.stringify(v)}`), expected, what);
      return;
    }
    // Insert at the deepest map that exists, as nested maps holding `v`.
    let depth = p.length - 1;
    while (depth > 0 && !nodeAt(p.slice(0, depth))) depth--;
    let nested: Json = v;
    for (let i = p.length - 1; i > depth; i--) nested = { [String(p[i])]: nested };
    addToMap(p.slice(0, depth), String(p[depth]), nested, expected, what);
  };

  const append = (p: ConfigPath, item: Json): void => {
    const seq = nodeAt(p);
    if (!seq || !isSeq(seq) || (seq.flow && seq.items.length === 0)) {
      if (seq && isSeq(seq)) {
        // `event: []` becomes a block sequence under its key.
        const what = `adding to ${label(p)}`;
        const expected = edited(value, p, (parent, key) => void ((parent as Record<string | number, Json>)[key] = [item]));
        const [start, end] = seq.range!;
        let from = start;
        while (from > 0 && (current[from - 1] === ' ' || current[from - 1] === '\t')) from--;
        const indent = indentAt(current, start) + '  ';
        commit(splice(from, end, `${eol}${indent}${block([item], indent, eol)}`), expected, what);
        return;
      }
      const found = p.reduce<unknown>((n, key) => (n && typeof n === 'object' ? (n as Record<string | number, unknown>)[key] : undefined), value);
      if (found !== undefined && found !== null) throw notAList(path, label(p), found);
      set(p, [item]);
      return;
    }
    const what = `adding to ${label(p)}`;
    const expected = edited(value, p, (parent, key) => void ((parent as Record<string | number, Json[]>)[key] as Json[]).push(item));
    if (seq.flow) throw refuse(what, `${label(p)} is a non-empty flow sequence`);
    const firstItem = seq.items[0] as YamlNode;
    const lastItem = seq.items[seq.items.length - 1] as YamlNode;
    const dash = current.lastIndexOf('-', firstItem.range![0]);
    const indent = current.slice(lineStart(current, dash), dash);
    const at = lineEndAfter(current, lastItem.range![1]);
    const lead = at === current.length && at > 0 && !current.endsWith('\n') ? eol : '';
    commit(splice(at, at, `${lead}${indent}${block([item], indent, eol)}${eol}`), expected, what);
  };

  const remove = (p: ConfigPath): void => {
    const parentPath = p.slice(0, -1);
    const parent = nodeAt(parentPath);
    const key = p[p.length - 1]!;
    if (!parent || !isCollection(parent) || !doc.hasIn([...p])) return;
    const what = `removing ${label(p)}`;
    const expected = edited(value, p, (container, k) => {
      if (Array.isArray(container)) container.splice(Number(k), 1);
      else delete (container as Record<string | number, Json>)[k];
    });
    const items = parent.items as Array<YamlNode | Pair<YamlNode, YamlNode | null>>;
    const index = isSeq(parent) ? Number(key) : items.findIndex((pair) => isScalar((pair as Pair<YamlNode>).key) && String(((pair as Pair<YamlNode>).key as { value: unknown }).value) === String(key));
    const startOf = (entry: YamlNode | Pair<YamlNode, YamlNode | null>): number => ('key' in entry ? (entry.key as YamlNode) : (entry as YamlNode)).range![0];
    const endOf = (entry: YamlNode | Pair<YamlNode, YamlNode | null>): number => ('key' in entry ? (entry.value ?? (entry.key as YamlNode)) : (entry as YamlNode)).range![1];
    if (parent.flow) {
      // A flow collection is rewritten as JSON (valid flow YAML) on its own span.
      const sub = parentPath.reduce<Json>((n, k) => (n as Record<string | number, Json>)[k], expected);
      const [start, end] = parent.range!;
      commit(splice(start, end, JSON.stringify(sub)), expected, what);
      return;
    }
    const entry = items[index]!;
    const from = lineStart(current, isSeq(parent) ? current.lastIndexOf('-', startOf(entry)) : startOf(entry));
    const to = index + 1 < items.length ? lineStart(current, isSeq(parent) ? current.lastIndexOf('-', startOf(items[index + 1]!)) : startOf(items[index + 1]!)) : lineEndAfter(current, endOf(entry));
    if (items.length > 1 || parentPath.length === 0) {
      commit(splice(from, to, ''), expected, what);
      return;
    }
    // The last entry of a nested block collection: its key keeps an empty flow collection (`key: []`).
    const holder = nodeAt(parentPath.slice(0, -1));
    const pair = holder && isMap(holder) ? (holder.items as Array<Pair<YamlNode>>).find((x) => x.value === parent) : undefined;
    if (!pair) throw refuse(what, `${label(parentPath)} is not under a mapping key`);
    const keyEnd = (pair.key as YamlNode).range![1];
    const colon = current.indexOf(':', keyEnd);
    const empty = isSeq(parent) ? ' []' : ' {}';
    // After the collection's own tag and anchor (`hooks: &h !!map`), which belong before it.
    const props = colon + 1 + /^(?:[ \t]+[!&][^\s#]*)*/.exec(current.slice(colon + 1, from))![0].length;
    commit(current.slice(0, props) + empty + current.slice(props, from) + current.slice(to), expected, what);
  };

  /**
   * Refuses an edit under a mapping that holds a merge key (`<<: {pre_tool_call: […]}`): Hermes
   * reads YAML as PyYAML does (YAML 1.1), which merges it, while here it is a key like any other,
   * so an entry cordon writes beside it would hide the merged one (the user's hook stops running).
   */
  const noMergeKeyOn = (p: ConfigPath, what: string): void => {
    for (let depth = 0; depth <= p.length; depth++) {
      const node = nodeAt(p.slice(0, depth));
      if (node && isMap(node) && node.items.some((pair) => isScalar(pair.key) && pair.key.value === '<<')) {
        throw refuse(what, `${label(p.slice(0, depth))} holds a merge key (<<), which Hermes merges and cordon does not edit around`);
      }
    }
  };

  /**
   * Refuses an edit at or under an alias (`hooks: *h`, `pre_tool_call: *mine`): the node it
   * names is anchored elsewhere and may be used in more places, so an entry written into it would
   * show wherever the anchor is used; cordon says so rather than calling it the wrong type.
   */
  const noAliasOn = (p: ConfigPath, what: string): void => {
    for (let depth = 1; depth <= p.length; depth++) {
      const node = nodeAt(p.slice(0, depth));
      if (node && isAlias(node)) {
        throw refuse(what, `${label(p.slice(0, depth))} is an alias (*${node.source}) of a node anchored elsewhere, which cordon does not edit through: write it out in place`);
      }
    }
  };
  const guard = (p: ConfigPath, what: string): void => (noAliasOn(p, what), noMergeKeyOn(p, what));

  return {
    get value() {
      return value;
    },
    set: (p, v) => (guard(p, `setting ${label(p)}`), set(p, v)),
    append: (p, item) => (guard(p, `adding to ${label(p)}`), append(p, item)),
    remove: (p) => (guard(p, `removing ${label(p)}`), remove(p)),
    toString: () => mark + current,
  };
}
