import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cutText, cutTextEnd, cutUtf8, cutUtf8Bytes, wellFormed } from '@cordon/plugin-api';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, linkPluginRoots, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import type { CordonHost } from '../../src/bus/host.js';
import { handleHookPayload } from '../../src/hot/handle.js';
import { MAX_COMMAND_CHARS, MAX_ERROR_CHARS, readMarkers } from '../../src/telemetry/markers.js';
import { reduce } from '../../src/telemetry/reduce/index.js';
import { hostWithDialects } from './support.js';

// Issue 11 item 8: text cut in the middle of a character. Every cut keeps whole code points, and
// what the hook and reduce write (markers.jsonl, `reduce --jsonl`, telemetry.sqlite3) is valid
// UTF-8 whose JSON strings hold no lone surrogate.

const strict = new TextDecoder('utf-8', { fatal: true });

/** Random text that stresses cuts: astral characters, lone surrogates of both halves, BMP and ASCII. */
const unicode = fc.string({
  unit: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('😀', '𝄞', '👩‍👩‍👧', '\u{10FFFF}', '🇫🇷') },
    { weight: 1, arbitrary: fc.constantFrom('\ud83d', '\ude00', '\udbff', '\udc00') },
    { weight: 2, arbitrary: fc.constantFrom('é', '中', '\u0000', '\n', '"', '\\') },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  ),
  maxLength: 60,
});

function isWellFormed(text: string): boolean {
  return wellFormed(text) === text;
}

/** Every string anywhere in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

/** Throws unless `bytes` are valid UTF-8 and every JSON line's strings are well formed. */
function expectCleanJsonLines(bytes: Buffer): void {
  const text = strict.decode(bytes);
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    for (const s of strings(JSON.parse(line))) expect(isWellFormed(s)).toBe(true);
  }
}

/** Throws unless every text cell of every table in the SQLite file is valid UTF-8 (as stored, byte for byte). */
function expectCleanDatabase(path: string): number {
  const db = new Database(path, { readonly: true });
  let cells = 0;
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
    for (const { name } of tables) {
      const columns = db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string }>;
      for (const { name: column } of columns) {
        const rows = db.prepare(`SELECT hex("${column}") AS h FROM "${name}" WHERE typeof("${column}") = 'text'`).all() as Array<{ h: string }>;
        for (const { h } of rows) {
          strict.decode(Buffer.from(h, 'hex'));
          cells++;
        }
      }
    }
  } finally {
    db.close();
  }
  return cells;
}

describe('the cut helpers, over random Unicode text with astral characters and lone surrogates', () => {
  it('cutText: a well-formed prefix of at most n units, at most one unit short of n', () => {
    fc.assert(
      fc.property(unicode, fc.nat(70), (text, n) => {
        const out = cutText(text, n);
        expect(isWellFormed(out)).toBe(true);
        expect(out.length).toBeLessThanOrEqual(n);
        expect(wellFormed(text).startsWith(out)).toBe(true);
        expect(out.length).toBeGreaterThanOrEqual(Math.min(n, text.length) - 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('cutTextEnd: a well-formed suffix of at most n units, at most one unit short of n', () => {
    fc.assert(
      fc.property(unicode, fc.nat(70), (text, n) => {
        const out = cutTextEnd(text, n);
        expect(isWellFormed(out)).toBe(true);
        expect(out.length).toBeLessThanOrEqual(n);
        expect(wellFormed(text).endsWith(out)).toBe(true);
        expect(out.length).toBeGreaterThanOrEqual(Math.min(n, text.length) - 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('cutUtf8: valid UTF-8 of at most n bytes, a prefix, at most three bytes short', () => {
    fc.assert(
      fc.property(unicode, fc.nat(200), (text, n) => {
        const out = cutUtf8(text, n);
        const bytes = Buffer.from(out, 'utf8');
        expect(strict.decode(bytes)).toBe(out);
        expect(isWellFormed(out)).toBe(true);
        expect(bytes.length).toBeLessThanOrEqual(n);
        expect(wellFormed(text).startsWith(out)).toBe(true);
        expect(bytes.length).toBeGreaterThanOrEqual(Math.min(n, Buffer.byteLength(wellFormed(text))) - 3);
      }),
      { numRuns: 3000 },
    );
  });

  it('cutUtf8Bytes: the first at most n bytes of valid UTF-8, back to a character start', () => {
    fc.assert(
      fc.property(unicode, fc.nat(200), (text, n) => {
        const source = Buffer.from(wellFormed(text), 'utf8');
        const out = cutUtf8Bytes(source, n);
        const bytes = Buffer.from(out, 'utf8');
        expect(strict.decode(bytes)).toBe(out);
        expect(bytes.length).toBeLessThanOrEqual(n);
        expect(source.subarray(0, bytes.length).equals(bytes)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('through the hook and reduce', () => {
  let sandbox: Sandbox;
  let host: CordonHost;
  beforeEach(async () => {
    sandbox = makeSandbox('cordon-text-cuts-');
    sandbox.env.CORDON_SAMPLER = 'off';
    host = await hostWithDialects(sandbox.dataDir);
  });
  afterEach(() => sandbox.cleanup());

  /** Text long enough to be cut at `MAX_*_CHARS`, with random characters around the cut. */
  const long = fc.tuple(fc.integer({ min: 1940, max: 2000 }), unicode, unicode).map(([n, a, b]) => `${'x'.repeat(n)}${a}😀😀😀${b}`);

  it('random commands and error texts around the 2,000-character cut: markers, records and the database are valid UTF-8', async () => {
    let i = 0;
    await fc.assert(
      fc.asyncProperty(long, long, async (command, error) => {
        i++;
        const base = { session_id: `cut-${i}`, tool_name: 'Bash', tool_input: { command }, tool_use_id: `t${i}`, cwd: '/w' };
        await handleHookPayload({ ...base, hook_event_name: 'PreToolUse' }, { host, agent: 'claude-code', env: {} });
        await handleHookPayload({ ...base, hook_event_name: 'PostToolUseFailure', error }, { host, agent: 'claude-code', env: {} });
        const path = join(sandbox.dataDir, 'runs', `cut-${i}`, 'markers.jsonl');
        expectCleanJsonLines(readFileSync(path));
        const { markers, badLines } = readMarkers(path);
        expect(badLines).toEqual([]);
        expect(markers[0]!.command!.length).toBeLessThanOrEqual(MAX_COMMAND_CHARS);
        expect(wellFormed(command).startsWith(markers[0]!.command!)).toBe(true);
        expect(markers[1]!.error!.length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
      }),
      { numRuns: 60 },
    );
    const reduced = await reduce({ dataDir: sandbox.dataDir, all: true });
    expect(reduced.sessions).toHaveLength(i);
    for (const s of reduced.sessions) for (const call of s.calls) expectCleanJsonLines(Buffer.from(JSON.stringify(call), 'utf8'));
    expect(expectCleanDatabase(reduced.db)).toBeGreaterThan(0);
  }, 120_000);

  it('the example through the built processes: a 2,000-character cut between the halves of an emoji', async () => {
    linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/claude-code', root: join(REPO_ROOT, 'plugins', 'claude-code') }]);
    // The 2,000th code unit is the first half of 😀: a code-unit slice would keep a lone surrogate.
    const command = `${'a'.repeat(1999)}😀 and more`;
    const error = `${'e'.repeat(1999)}😀 tail`;
    const base = { session_id: 'emoji', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'e1', cwd: '/w' };
    for (const payload of [{ ...base, hook_event_name: 'PreToolUse' }, { ...base, hook_event_name: 'PostToolUseFailure', error }]) {
      const r = await runCordon(['hook', '--agent', 'claude-code'], { env: sandbox.env, input: JSON.stringify(payload) });
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    }
    const path = join(sandbox.dataDir, 'runs', 'emoji', 'markers.jsonl');
    expectCleanJsonLines(readFileSync(path));
    const { markers } = readMarkers(path);
    expect(markers.map((m) => [m.command, m.error])).toEqual([
      ['a'.repeat(1999), undefined],
      ['a'.repeat(1999), 'e'.repeat(1999)],
    ]);
    const jsonl = await runCordon(['reduce', '--session', 'emoji', '--jsonl'], { env: sandbox.env });
    expect(jsonl.exitCode).toBe(0);
    expectCleanJsonLines(Buffer.from(jsonl.stdout, 'utf8'));
    expect(JSON.parse(jsonl.stdout).command).toBe('a'.repeat(1999));
    const text = await runCordon(['reduce', '--session', 'emoji'], { env: sandbox.env });
    expect(strict.decode(Buffer.from(text.stdout, 'utf8'))).toContain('#1 Bash');
    const db = join(sandbox.dataDir, 'telemetry.sqlite3');
    expect(existsSync(db)).toBe(true);
    expect(expectCleanDatabase(db)).toBeGreaterThan(0);
  }, 120_000);
});
