import type { TomlDocument } from '@cordon/plugin-api';
import { parse } from 'smol-toml';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { unparseable } from './unparseable.js';

type Scalar = string | number | boolean;

/** A standard table header line (`[a.b."c"]`, not an array-of-tables `[[…]]`), with an optional trailing comment. */
const HEADER = /^\s*\[(?!\[)(.+)\]\s*(#.*)?$/;

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** TOML for one key segment: bare when possible, else a basic string (JSON escapes are valid TOML escapes). */
function keySegment(key: string): string {
  return BARE_KEY.test(key) ? key : JSON.stringify(key);
}

/** `[a.b."c d"]` for a path. */
export function tableHeader(path: readonly string[]): string {
  return `[${path.map(keySegment).join('.')}]`;
}

function scalar(value: Scalar): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CordonError(ERROR_CODES.INTERNAL, `cannot write ${value} to TOML`);
    return String(value);
  }
  return value ? 'true' : 'false';
}

/**
 * smol-toml's parse error in words with its place, as the JSON and YAML editors say theirs
 * (`invalid value at line 2, column 9`): its first line without the `Invalid TOML document: `
 * every message starts with, and the `line` and `column` the error carries (1-based).
 */
export function tomlSyntax(error: unknown): string {
  const e = error as { message?: unknown; line?: unknown; column?: unknown } | null;
  const words = String(e?.message ?? error).split('\n')[0]!.replace(/^Invalid TOML document: /, '');
  return typeof e?.line === 'number' && typeof e.column === 'number' ? `${words} at line ${e.line}, column ${e.column}` : words;
}

/** The key path a header line declares, decoded by the TOML parser itself (any quoting); `undefined` if the line is not a header. */
function headerPath(line: string): string[] | undefined {
  const m = HEADER.exec(line);
  if (!m) return undefined;
  let node: unknown;
  try {
    node = parse(`[${m[1]}]\n`);
  } catch {
    return undefined;
  }
  const path: string[] = [];
  while (node && typeof node === 'object' && !Array.isArray(node)) {
    const keys = Object.keys(node);
    if (keys.length !== 1) break;
    path.push(keys[0]!);
    node = (node as Record<string, unknown>)[keys[0]!];
  }
  return path;
}

const samePath = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);

/**
 * Sorted-key JSON, to compare parsed documents. Empty tables are dropped: TOML creates parent
 * tables implicitly, so `[a.b.c]` removed leaves no `a` where the expected data has `a.b = {}`.
 */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v instanceof Date) return v.toISOString();
    if (v && typeof v === 'object') {
      const entries = Object.keys(v)
        .sort()
        .map((k) => [k, sort(own(v, k))] as const)
        .filter(([, x]) => !(x && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0));
      const out: Record<string, unknown> = {};
      for (const [k, x] of entries) define(out, k, x);
      return out;
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

/** Own property `key` (never the prototype chain: keys like `__proto__` are plain keys in TOML). */
function own(node: unknown, key: string): unknown {
  return node && typeof node === 'object' && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
}

function define(node: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

function getIn(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => own(node, key), value);
}

function setIn(value: Record<string, unknown>, path: readonly string[], leaf: Record<string, unknown> | undefined): void {
  let node = value;
  for (const key of path.slice(0, -1)) {
    const next = own(node, key);
    if (!next || typeof next !== 'object') define(node, key, {});
    node = own(node, key) as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (leaf === undefined) delete node[last];
  else {
    const merged: Record<string, unknown> = {};
    for (const [k, v] of Object.entries((own(node, last) as Record<string, unknown>) ?? {})) define(merged, k, v);
    for (const [k, v] of Object.entries(leaf)) define(merged, k, v);
    define(node, last, merged);
  }
}

/**
 * A TOML file edited by surgical text edits: no TOML library for Node keeps comments when it
 * writes, so the editor changes only the lines of the tables it is asked about and leaves every
 * other byte alone. After each edit the text is parsed again and compared with the expected
 * data (the original plus exactly that edit); any difference refuses the edit instead of writing
 * a file the agent would read differently (`CORDON_CONFIG_EDIT`). Used for Codex's
 * `[hooks.state."<key>"]` trust entries (the Codex hooks docs).
 */
export function tomlDocument(path: string, text: string | undefined): TomlDocument {
  let current = text ?? '';
  let value: Record<string, unknown>;
  try {
    value = parse(current) as Record<string, unknown>;
  } catch (error) {
    throw unparseable(path, 'TOML', tomlSyntax(error));
  }
  const eol = current.includes('\r\n') ? '\r\n' : '\n';

  /** Line range [start, end) of the standard table `path`: its header through the line before the next header. */
  const section = (lines: string[], p: readonly string[]): { start: number; end: number } | undefined => {
    const start = lines.findIndex((line) => {
      const h = headerPath(line);
      return h !== undefined && samePath(h, p);
    });
    if (start < 0) return undefined;
    let end = start + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
    return { start, end };
  };

  const refuse = (what: string, why = 'the table is written inline or with dotted keys, a form cordon does not rewrite'): CordonError =>
    new CordonError(ERROR_CODES.CONFIG_EDIT, `${path}: ${what} cannot be done by a surgical edit (${why}); the file is left untouched`, { details: { path } });

  /**
   * Refuses an edit under a key on the way to `p` that is not a table: an array of tables
   * (`[[hooks.state]]`) or a value. The edit would otherwise be dropped by the comparison (an
   * entry set on an array is no element of it) and the install reported done with no trust
   * written; the agent itself refuses such a file (Codex wants `hooks.state` a table).
   */
  const tablesOnTheWay = (p: readonly string[], what: string): void => {
    let node: unknown = value;
    for (let depth = 0; depth < p.length; depth++) {
      node = node && typeof node === 'object' ? own(node as Record<string, unknown>, p[depth]!) : undefined;
      if (node === undefined) return;
      if (typeof node !== 'object' || node === null || Array.isArray(node)) {
        const kind = Array.isArray(node) ? `an array${node.every((x) => x && typeof x === 'object' && !Array.isArray(x)) ? ' of tables ([[…]])' : ''}` : `a ${typeof node}`;
        throw refuse(what, `${p.slice(0, depth + 1).join('.')} is ${kind}, where a table belongs`);
      }
    }
  };

  const commit = (next: string, expected: Record<string, unknown>, what: string): void => {
    let parsed: unknown;
    try {
      parsed = parse(next);
    } catch (error) {
      throw new CordonError(ERROR_CODES.CONFIG_EDIT, `${path}: ${what} would not leave valid TOML (${(error as Error).message.split('\n')[0]}); the file is left untouched`, { details: { path } });
    }
    if (canonical(parsed) !== canonical(expected)) throw refuse(what);
    current = next;
    value = parsed as Record<string, unknown>;
  };

  return {
    get value() {
      return value;
    },
    upsertTable(p, entries, comment) {
      tablesOnTheWay(p, `setting ${tableHeader(p)}`);
      const expected = structuredClone(value);
      setIn(expected, p, { ...entries });
      if (canonical(expected) === canonical(value)) return;
      const lines = current.split(eol);
      const found = section(lines, p);
      const what = `setting ${tableHeader(p)}`;
      if (!found) {
        if (getIn(value, p) !== undefined) throw refuse(what);
        const head = current === '' || current.endsWith(eol) ? current : current + eol;
        const block = [...(head.trim() === '' ? [] : ['']), ...(comment ? [`# ${comment}`] : []), tableHeader(p), ...Object.entries(entries).map(([k, v]) => `${keySegment(k)} = ${scalar(v)}`), ''];
        commit(head + block.join(eol), expected, what);
        return;
      }
      const body = lines.slice(found.start + 1, found.end);
      for (const [k, v] of Object.entries(entries)) {
        const line = `${keySegment(k)} = ${scalar(v)}`;
        const at = body.findIndex((l) => new RegExp(`^\\s*${keySegment(k).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=`).test(l));
        if (at >= 0) body[at] = line;
        else body.unshift(line);
      }
      commit([...lines.slice(0, found.start + 1), ...body, ...lines.slice(found.end)].join(eol), expected, what);
    },
    removeTable(p, comment) {
      tablesOnTheWay(p.slice(0, -1), `removing ${tableHeader(p)}`);
      if (getIn(value, p) === undefined) return;
      const expected = structuredClone(value);
      setIn(expected, p, undefined);
      const lines = current.split(eol);
      const found = section(lines, p);
      const what = `removing ${tableHeader(p)}`;
      if (!found) throw refuse(what);
      let { start, end } = found;
      // Keep comment lines at the end of the section: they introduce whatever follows.
      while (end > start + 1 && /^\s*#/.test(lines[end - 1]!) && lines[end - 1] !== `# ${comment}`) end--;
      while (end > start + 1 && lines[end - 1]!.trim() === '') end--;
      if (comment && start > 0 && lines[start - 1] === `# ${comment}`) start--;
      // Drop the blank line that separated the block from what came before it.
      if (start > 0 && lines[start - 1]!.trim() === '' && (end >= lines.length || lines[end]!.trim() === '' || /^\s*\[/.test(lines[end]!))) start--;
      commit([...lines.slice(0, start), ...lines.slice(end)].join(eol), expected, what);
    },
    toString: () => current,
  };
}
