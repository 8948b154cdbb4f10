import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type { LedgerCompaction, LedgerMessage, LedgerRangeRequest, LedgerRole } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { LEDGER_SCHEMA_VERSION, renderText, renderWithRoles, visibleEntries, type Ledger } from '../../src/ledger/index.js';
import { RENDER_PIECE_CHARS } from '../../src/ledger/ledger.js';
import { ledgerSandbox } from './helpers.js';

// The render, the visible entries and compaction validation read a session through SQLite
// aggregates and a role index (src/ledger/reads.ts) instead of loading every row. These tests pin
// them, on real files, to the pure walk over all messages (state.ts `visibleEntries`).

const { L, dir } = ledgerSandbox();

/** Every message of a session with its exact text, straight from SQLite (the model the pure walk needs). */
function storedMessages(path: string, session: string): LedgerMessage[] {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare(`select id, seq, role, text, source, created_at_ms from messages where session_id = ? order by seq`).raw().all(session) as Array<[string, number, LedgerRole, string, string | null, number]>;
    return rows.map(([id, seq, role, text, source, createdAtMs]) => ({ id, seq, role, text, source, createdAtMs }));
  } finally {
    db.close();
  }
}

/** The session as the pure walk sees it: every stored message and the ledger's active compactions. */
async function model(ledger: Ledger, path: string, session: string): Promise<{ messages: LedgerMessage[]; compactions: LedgerCompaction[] }> {
  return { messages: storedMessages(path, session), compactions: await ledger.compactions(session) };
}

describe('render and visible entries on a real file', () => {
  it('render of a compacted ledger is the expected text, byte for byte', async () => {
    const path = join(dir(), 'l.sqlite3');
    const ledger = await L.open(path);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [
      { role: 'system', text: 'rules' },
      { role: 'user', text: 'café ☕ 日本語 😀' },
      { role: 'assistant', text: 'line\n' },
      { role: 'tool', text: `it's "quoted" || not SQL` },
      { role: 'user', text: 'middle' },
      { role: 'assistant', text: 'second to last' },
      { role: 'assistant', text: 'last' },
    ]);
    await ledger.compact('s', [
      { from: 'msg1', to: 'msg2', summary: 'start ✓' },
      { from: 'msg3', to: 'msg4', summary: 'call and result' },
      { from: 'msg6', to: 'msg7', summary: 'the end\n' },
    ]);
    // cmp4 takes in cmp2 (superseded) and msg5; only the active compactions show.
    await ledger.compact('s', [{ from: 'cmp2', to: 'msg5', summary: 'nested' }]);
    const expected = 'start ✓\n<aboveturn id="cmp1"/>\n\nnested\n<aboveturn id="cmp4"/>\n\nthe end\n\n<aboveturn id="cmp3"/>';
    expect(await ledger.render('s')).toBe(expected);
    expect(renderText(await ledger.visible('s'))).toBe(expected);
    expect((await ledger.visible('s')).map((e) => [e.id, e.role])).toEqual([
      ['cmp1', 'system'],
      ['cmp4', 'user'],
      ['cmp3', 'assistant'],
    ]);

    await ledger.uncompact('s', 'cmp4');
    expect(await ledger.render('s')).toBe('start ✓\n<aboveturn id="cmp1"/>\n\ncall and result\n<aboveturn id="cmp2"/>\n\nmiddle\n<aboveturn id="msg5"/>\n\nthe end\n\n<aboveturn id="cmp3"/>');
    await ledger.uncompact('s', 'cmp1');
    await ledger.uncompact('s', 'cmp2');
    await ledger.uncompact('s', 'cmp3');
    expect(await ledger.render('s')).toBe(
      [
        'rules\n<aboveturn id="msg1"/>',
        'café ☕ 日本語 😀\n<aboveturn id="msg2"/>',
        'line\n\n<aboveturn id="msg3"/>',
        `it's "quoted" || not SQL\n<aboveturn id="msg4"/>`,
        'middle\n<aboveturn id="msg5"/>',
        'second to last\n<aboveturn id="msg6"/>',
        'last\n<aboveturn id="msg7"/>',
      ].join('\n\n'),
    );
  });

  it('keeps a NUL character and text that looks like markup exactly', async () => {
    const path = join(dir(), 'l.sqlite3');
    const ledger = await L.open(path);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [{ role: 'user', text: 'a\u0000b' }, { role: 'assistant', text: '<aboveturn id="msg9"/>' }]);
    expect(await ledger.render('s')).toBe('a\u0000b\n<aboveturn id="msg1"/>\n\n<aboveturn id="msg9"/>\n<aboveturn id="msg2"/>');
  });

  it('renderTo hands over the render in pieces of about RENDER_PIECE_CHARS characters, in order, with the same bytes as render()', async () => {
    const path = join(dir(), 'l.sqlite3');
    const ledger = await L.open(path);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    // Runs of short messages, of 1,000-character ones and one of 100,000: each run's pieces are sized from the piece before.
    const texts = Array.from({ length: 5_003 }, (_, i) => (i === 4_500 ? 'y'.repeat(100_000) : i >= 2_000 && i < 3_000 ? `m${i + 1} ${'x'.repeat(1_000)}` : i % 11 === 0 ? `m${i + 1}\n` : `m${i + 1} é`));
    for (let i = 0; i < texts.length; i += 500) await ledger.record('s', texts.slice(i, i + 500).map((text, k) => ({ role: (i + k) % 2 ? ('assistant' as const) : ('user' as const), text })));
    // One compaction inside the first piece's range, one inside the long messages.
    await ledger.compact('s', [
      { from: 'msg10', to: 'msg12', summary: 'first' },
      { from: 'msg2500', to: 'msg2511', summary: 'second' },
    ]);
    const pieces: string[] = [];
    await ledger.renderTo('s', (piece) => void pieces.push(piece));
    expect(pieces.join('')).toBe(await ledger.render('s'));
    expect(pieces.join('')).toBe(renderText(visibleEntries(await model(ledger, path, 's'))));
    expect(pieces.slice(1).every((p) => p.startsWith('\n\n'))).toBe(true);
    const blocks = pieces.map((p) => (p.match(/<aboveturn /g) ?? []).length);
    expect(blocks.slice(0, 2)).toEqual([9, 1]);
    expect(blocks.reduce((a, b) => a + b)).toBe(5_003 - 3 - 12 + 2);
    // A piece is sized from the one before: it stays near the target while message lengths do,
    // and only where they rise (short to 1,000 characters, then the 100,000-character one, which
    // is not split) do the pieces read before the size is seen run over twice the target.
    const over = pieces.filter((p) => p.length > 2 * RENDER_PIECE_CHARS);
    expect(over.length).toBeLessThanOrEqual(3);
    expect(over.some((p) => p.includes('y'.repeat(100_000)))).toBe(true);
    const runOfLong = pieces.filter((p) => p.includes('x'.repeat(1_000)) && !p.includes('y'));
    expect(runOfLong.length).toBeGreaterThan(10);
    expect(runOfLong.filter((p) => p.length <= RENDER_PIECE_CHARS + 1_100).length).toBeGreaterThanOrEqual(runOfLong.length - 3);
    expect(pieces.some((p) => p.includes('y'.repeat(100_000)))).toBe(true);
  });

  it('renderWithRolesTo and visibleIdsTo hand over the role render and the ids in pieces, in order, with the same bytes as the walk over every message', async () => {
    const path = join(dir(), 'l.sqlite3');
    const ledger = await L.open(path);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    // Control characters, a NUL, text ending in a newline, characters outside the BMP.
    const texts = Array.from({ length: 20_011 }, (_, i) => [`m${i + 1}\n`, `m${i + 1} é\u001b[31m`, `m${i + 1}\u0000 😀`, `[m${i + 1}]`][i % 4]!);
    for (let i = 0; i < texts.length; i += 2000) await ledger.record('s', texts.slice(i, i + 2000).map((text, k) => ({ role: (['user', 'assistant', 'system', 'developer'] as const)[(i + k) % 4]!, text })));
    await ledger.compact('s', [
      { from: 'msg10', to: 'msg12', summary: 'first\u0007' },
      { from: 'msg3990', to: 'msg4011', summary: 'second\n' },
      { from: 'msg19000', to: 'msg20011', summary: 'to the end' },
    ]);
    const entries = visibleEntries(await model(ledger, path, 's'));
    const pieces: string[] = [];
    await ledger.renderWithRolesTo('s', (piece) => void pieces.push(piece));
    expect(pieces.join('')).toBe(renderWithRoles(entries));
    expect(await ledger.renderWithRoles('s')).toBe(renderWithRoles(entries));
    expect(pieces.length).toBeGreaterThan(5);
    expect(Math.max(...pieces.map((p) => (p.match(/<aboveturn /g) ?? []).length))).toBeLessThanOrEqual(2_000);
    expect(pieces[1]).toBe('\n\n[compaction msg10..msg12, as system]\nfirst\u0007\n<aboveturn id="cmp1"/>');

    const idPieces: Array<readonly string[]> = [];
    await ledger.visibleIdsTo('s', (ids) => void idPieces.push([...ids]));
    expect(idPieces.flat()).toEqual(entries.map((e) => e.id));
    expect(idPieces.flat()).toEqual(await ledger.visibleIds('s'));
    expect(idPieces.length).toBeGreaterThan(1);
    expect(idPieces.every((p) => p.length > 0 && p.length <= 8192)).toBe(true);

    await expect(ledger.renderWithRolesTo('nobody', (piece) => void pieces.push(piece))).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED' });
    await expect(ledger.visibleIdsTo('nobody', (ids) => void idPieces.push(ids))).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED' });
  }, 60_000);

  // `pcodx show | head` went on reading and rendering the whole ledger after its reader had gone.
  it('a writer that returns false (its reader has gone) ends renderTo, renderWithRolesTo and visibleIdsTo: nothing more is handed over', async () => {
    const ledger = await L.open(join(dir(), 'l.sqlite3'));
    await ledger.resolveSession({ mode: 'create', id: 's' });
    for (let i = 0; i < 20_000; i += 2000) await ledger.record('s', Array.from({ length: 2000 }, (_, k) => ({ role: 'user' as const, text: `m${i + k + 1} ${'x'.repeat(200)}` })));
    await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'first' }]);
    for (const stopAt of [1, 2, 3]) {
      const pieces: string[] = [];
      await ledger.renderTo('s', (piece) => pieces.push(piece) < stopAt);
      expect(pieces).toHaveLength(stopAt);
      const roles: string[] = [];
      await ledger.renderWithRolesTo('s', async (piece) => roles.push(piece) < stopAt);
      expect(roles).toHaveLength(stopAt);
      const ids: Array<readonly string[]> = [];
      await ledger.visibleIdsTo('s', (piece) => ids.push(piece) < stopAt);
      expect(ids).toHaveLength(stopAt);
    }
    // Anything but false goes on: the whole render.
    const all: string[] = [];
    await ledger.renderTo('s', (piece) => all.push(piece) > 0);
    expect(all.join('')).toBe(await ledger.render('s'));
  });

  it('renderTo refuses an unknown session before it writes anything', async () => {
    const ledger = await L.open(join(dir(), 'l.sqlite3'));
    await ledger.resolveSession({ mode: 'create', id: 's' });
    const pieces: string[] = [];
    await expect(ledger.renderTo('nobody', (piece) => void pieces.push(piece))).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED' });
    expect(pieces).toEqual([]);
  });

  it('render, visible entries, ids and a dry run equal the walk over every message, for random sessions and compactions', async () => {
    const role = fc.constantFrom<LedgerRole>('system', 'developer', 'user', 'assistant', 'assistant');
    const textArb = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('x\n', 'é😀', ' ', '\n\n'));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(role, textArb, fc.boolean()), { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 6 }),
        async (specs, spans) => {
          const path = join(dir(), `p${run++}.sqlite3`);
          const ledger = await L.open(path);
          await ledger.resolveSession({ mode: 'create', id: 's' });
          // A tool result (true) follows an assistant call, so every record is accepted.
          const inputs = specs.flatMap(([r, text, tool]) => (tool ? [{ role: 'assistant' as const, text }, { role: 'tool' as const, text: `${text}!` }] : [{ role: r, text }]));
          await ledger.record('s', inputs);
          const ids = await ledger.visibleIds('s');
          // Disjoint ranges over the visible ids; some are compacted in a second step that nests them.
          const requests: LedgerRangeRequest[] = [];
          let next = 0;
          for (const [gap, len] of spans) {
            const from = next + (gap % 3);
            const to = from + (len % 4);
            if (to >= ids.length) break;
            requests.push({ from: ids[from]!, to: ids[to]!, summary: `sum ${from}` });
            next = to + 1;
          }
          for (const request of requests) {
            // A range that splits a tool group is refused; the others are stored one by one.
            await ledger.compact('s', [request]).catch((error: { code?: string }) => expect(error.code).toBe('CORDON_LEDGER_REFUSED'));
          }
          const now = await model(ledger, path, 's');
          const entries = visibleEntries(now);
          expect(await ledger.render('s')).toBe(renderText(entries));
          expect(await ledger.visible('s')).toEqual(entries);
          expect(await ledger.visibleIds('s')).toEqual(entries.map((e) => e.id));
          expect(await ledger.renderWithRoles('s')).toBe(renderWithRoles(entries));

          // A dry run over the first and last visible entry (nesting everything) renders what storing it would.
          const all = [{ from: entries[0]!.id, to: entries[entries.length - 1]!.id, summary: 'everything' }];
          const dry = await ledger.compact('s', all, { dryRun: true });
          expect(dry.stored).toBe(false);
          expect(await ledger.render('s')).toBe(renderText(entries));
          await ledger.compact('s', all);
          expect(await ledger.render('s')).toBe(dry.render);
          expect(await ledger.visibleIds('s')).toEqual(dry.visibleIds);
          await L.closeAll();
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('compaction validation reads roles once and tops them up inside the write lock', () => {
  async function withWriter(path: string, plan: (writer: Ledger) => Promise<LedgerRangeRequest[]>) {
    // The hook runs between the first validation (outside the lock) and the second (inside it);
    // another connection records there, as another process would.
    const writer = await L.open(path);
    return L.open(path, { beforeStore: async (p) => ({ ...p, ranges: await plan(writer) }) });
  }

  it('sees a tool group recorded after the first read: an amended range that splits it is refused', async () => {
    const path = join(dir(), 'l.sqlite3');
    const ledger = await withWriter(path, async (writer) => {
      await writer.record('s', [{ role: 'assistant', text: 'call' }, { role: 'tool', text: 'out' }]);
      return [{ from: 'msg2', to: 'msg3', summary: 'split' }];
    });
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [{ role: 'user', text: 'ask' }, { role: 'assistant', text: 'answer' }]);
    await expect(ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'first' }])).rejects.toMatchObject({
      code: 'CORDON_LEDGER_REFUSED',
      message: 'range msg2..msg3 splits a tool_use/tool_result group at msg3; extend the range to msg4',
    });
    expect(await ledger.compactions('s')).toEqual([]);
  });

  it('sees roles recorded after the first read: an amended range over a new user message carries the warning', async () => {
    const path = join(dir(), 'l.sqlite3');
    const ledger = await withWriter(path, async (writer) => {
      await writer.record('s', [{ role: 'user', text: 'new ask' }]);
      return [{ from: 'msg2', to: 'msg3', summary: 'kept the ask' }];
    });
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [{ role: 'user', text: 'ask' }, { role: 'assistant', text: 'answer' }]);
    const result = await ledger.compact('s', [{ from: 'msg2', to: 'msg2', summary: 'answer only' }]);
    expect(result.ranges).toEqual([expect.objectContaining({ id: 'cmp1', fromSeq: 2, toSeq: 3, warning: expect.stringContaining('range msg2..msg3 holds system, developer or user messages') })]);
    expect(result.visibleIds).toEqual(['msg1', 'cmp1']);
    expect(await ledger.render('s')).toBe('ask\n<aboveturn id="msg1"/>\n\nkept the ask\n<aboveturn id="cmp1"/>');
  });
});

describe('schema version 2: the role index', () => {
  it('a version-1 ledger opens, gains the index, keeps its data and renders and compacts as before', async () => {
    const path = join(dir(), 'old.sqlite3');
    const first = await L.open(path);
    await first.resolveSession({ mode: 'create', id: 's' });
    await first.record('s', [{ role: 'user', text: 'ask' }, { role: 'assistant', text: 'call' }, { role: 'tool', text: 'out' }, { role: 'assistant', text: 'done' }]);
    const before = await first.render('s');
    await L.closeAll();
    // What a cordon before schema version 2 left on disk.
    const raw = new Database(path);
    raw.exec(`drop index messages_session_seq_role; update schema_meta set value = '1' where key = 'schema_version'`);
    raw.close();

    const ledger = await L.open(path);
    const check = new Database(path, { readonly: true });
    try {
      expect(check.prepare(`select value from schema_meta where key = 'schema_version'`).pluck().get()).toBe(String(LEDGER_SCHEMA_VERSION));
      expect(check.prepare(`select sql from sqlite_master where name = 'messages_session_seq_role'`).pluck().get()).toMatch(/\("session_id", "seq", "role"\)/);
    } finally {
      check.close();
    }
    expect(await ledger.render('s')).toBe(before);
    await expect(ledger.compact('s', [{ from: 'msg2', to: 'msg2', summary: 'x' }])).rejects.toMatchObject({ message: 'range msg2..msg2 splits a tool_use/tool_result group at msg2; extend the range to msg3' });
    await ledger.compact('s', [{ from: 'msg2', to: 'msg3', summary: 'ran it' }]);
    expect(await ledger.render('s')).toBe('ask\n<aboveturn id="msg1"/>\n\nran it\n<aboveturn id="cmp1"/>\n\ndone\n<aboveturn id="msg4"/>');
  });
});
