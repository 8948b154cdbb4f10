import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompactionPlan } from '@cordon/plugin-api';
import { LEDGER_SCHEMA_VERSION, resolveLedgerPath } from '../../src/ledger/index.js';
import { ledgers, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
const L = ledgers();
beforeEach(() => (tmp = tempDir()));
afterEach(async () => {
  await L.closeAll();
  tmp.cleanup();
});

const dbPath = () => join(tmp.dir, 'nested', 'dirs', 'pcodx.sqlite3');
/** Every row of a table, straight from SQLite (not through the ledger). */
function rows(path: string, table: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`select * from ${table} order by 1, 2`).all();
  } finally {
    db.close();
  }
}

describe('ledger location (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  it('prefers --db, then PCODX_DB, then $XDG_DATA_HOME/pcodx, then the platform default', () => {
    const env = { PCODX_DB: '/e/x.db', XDG_DATA_HOME: '/xdg', HOME: '/home/u' };
    expect(resolveLedgerPath({ db: 'rel/flag.db', env, cwd: '/work' })).toBe('/work/rel/flag.db');
    expect(resolveLedgerPath({ env })).toBe('/e/x.db');
    expect(resolveLedgerPath({ env: { XDG_DATA_HOME: '/xdg', HOME: '/home/u' } })).toBe('/xdg/pcodx/pcodx.sqlite3');
    expect(resolveLedgerPath({ env: { XDG_DATA_HOME: 'relative', HOME: '/home/u' }, platform: 'linux' })).toBe('/home/u/.local/share/pcodx/pcodx.sqlite3');
    expect(resolveLedgerPath({ env: { HOME: '/home/u' }, platform: 'darwin' })).toBe('/home/u/.local/share/pcodx/pcodx.sqlite3');
    expect(resolveLedgerPath({ env: { HOME: '/home/u', LOCALAPPDATA: '/appdata' }, platform: 'win32' })).toBe(join('/appdata', 'pcodx', 'pcodx.sqlite3'));
  });

  it('creates parent directories, uses WAL, enforces foreign keys and records the schema version', async () => {
    const ledger = await L.open(dbPath());
    expect(existsSync(dbPath())).toBe(true);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    const raw = new Database(dbPath(), { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.prepare(`select value from schema_meta where key = 'schema_version'`).pluck().get()).toBe(String(LEDGER_SCHEMA_VERSION));
    raw.close();
    const writer = new Database(dbPath());
    writer.pragma('foreign_keys = ON');
    expect(() => writer.prepare(`insert into messages (session_id, id, seq, role, text, created_at_ms) values ('nobody', 'msg1', 1, 'user', 't', 0)`).run()).toThrow(/FOREIGN KEY/);
    expect(() => writer.prepare(`insert into messages (session_id, id, seq, role, text, created_at_ms) values ('s', 'msg1', 1, 'robot', 't', 0)`).run()).toThrow(/CHECK/);
    writer.close();
  });
});

describe('sessions and the write order', () => {
  it('create mode upserts a named session and refreshes its cwd; existing mode refuses unknown names', async () => {
    const ledger = await L.open(dbPath());
    const a = await ledger.resolveSession({ mode: 'create', id: 'alpha', cwd: '/one' });
    expect(a).toMatchObject({ id: 'alpha', cwd: '/one' });
    expect(a.usageCorrelationId).toMatch(/^pcses-[0-9a-f]{32}$/);
    const again = await ledger.resolveSession({ mode: 'create', id: 'alpha', cwd: '/two' });
    expect(again).toMatchObject({ id: 'alpha', cwd: '/two', usageCorrelationId: a.usageCorrelationId, createdAtMs: a.createdAtMs });
    await expect(ledger.resolveSession({ mode: 'existing', id: 'beta' })).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED', message: 'unknown session `beta` (`cordon pcodx sessions` lists the sessions of this ledger)' });
    await expect(ledger.resolveSession({ mode: 'create', id: 'bad\nname' })).rejects.toMatchObject({ code: 'CORDON_BAD_INPUT', exit: 2, message: '--session "bad\\nname": not a valid session name: use 1-200 characters without control characters' });
  });

  it('without a name: existing mode needs a session; create mode makes ses<hex ms>-<pid> and then reuses the last-written one', async () => {
    const ledger = await L.open(dbPath());
    await expect(ledger.resolveSession({ mode: 'existing' })).rejects.toMatchObject({ message: 'no session; run `cordon pcodx init` first' });
    const made = await ledger.resolveSession({ mode: 'create' });
    expect(made.id).toMatch(new RegExp(`^ses[0-9a-f]+-${process.pid}$`));
    expect((await ledger.resolveSession({ mode: 'create' })).id).toBe(made.id);
    expect((await ledger.resolveSession({ mode: 'existing' })).id).toBe(made.id);
  });

  it('--last follows the write order, not timestamps: writing to an older session makes it the last', async () => {
    const ledger = await L.open(dbPath());
    await ledger.resolveSession({ mode: 'create', id: 'old' });
    await ledger.resolveSession({ mode: 'create', id: 'new' });
    expect((await ledger.lastSession())!.id).toBe('new');
    await ledger.record('old', [{ role: 'user', text: 'hi' }]);
    expect((await ledger.lastSession())!.id).toBe('old');
    // Same timestamps everywhere: the order still decides.
    const raw = new Database(dbPath());
    raw.prepare('update sessions set updated_at_ms = 5, created_at_ms = 5').run();
    raw.close();
    await ledger.record('new', [{ role: 'user', text: 'hi' }]);
    expect((await ledger.lastSession())!.id).toBe('new');
  });
});

describe('recording', () => {
  it('stores text byte-exact: CRLF, BOM, NUL, trailing newlines, spaces, astral characters', async () => {
    const ledger = await L.open(dbPath());
    await ledger.resolveSession({ mode: 'create', id: 's' });
    const texts = ['a\r\nb\r\n', '\uFEFFbom', 'nul\u0000inside', 'ends\n\n', '  lead and trail  ', 'emoji 🧪 ∑ é'];
    const stored = await ledger.record('s', texts.map((text) => ({ role: 'user' as const, text, source: 'test' })));
    expect(stored.map((m) => m.id)).toEqual(['msg1', 'msg2', 'msg3', 'msg4', 'msg5', 'msg6']);
    const back = (rows(dbPath(), 'messages') as Array<{ seq: number; text: string }>).sort((x, y) => x.seq - y.seq).map((m) => m.text);
    expect(back.map((t) => Buffer.from(t, 'utf8').toString('hex'))).toEqual(texts.map((t) => Buffer.from(t, 'utf8').toString('hex')));
    expect(await ledger.render('s')).toBe(texts.map((t, i) => `${t}\n<aboveturn id="msg${i + 1}"/>`).join('\n\n'));
  });

  it('numbers messages per session and records role flags and source', async () => {
    const ledger = await L.open(dbPath());
    for (const id of ['a', 'b']) await ledger.resolveSession({ mode: 'create', id });
    await ledger.record('a', [{ role: 'system', text: '1' }]);
    await ledger.record('b', [{ role: 'assistant', text: '1', source: 'src-b' }]);
    await ledger.record('a', [{ role: 'user', text: '2' }, { role: 'assistant', text: '3' }, { role: 'tool', text: '4' }]);
    const all = rows(dbPath(), 'messages') as Array<Record<string, unknown>>;
    expect(all.map((m) => [m.session_id, m.id, m.seq, m.role, m.is_human_prompt, m.preserve_warning, m.source])).toEqual([
      ['a', 'msg1', 1, 'system', 0, 1, null],
      ['a', 'msg2', 2, 'user', 1, 1, null],
      ['a', 'msg3', 3, 'assistant', 0, 0, null],
      ['a', 'msg4', 4, 'tool', 0, 0, null],
      ['b', 'msg1', 1, 'assistant', 0, 0, 'src-b'],
    ]);
  });

  it('a batch is all or nothing, and bad input is refused with the reason', async () => {
    const ledger = await L.open(dbPath());
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await expect(ledger.record('s', [{ role: 'user', text: 'ok' }, { role: 'robot' as never, text: 'x' }])).rejects.toMatchObject({ message: 'unknown role `robot`; use system, developer, user, assistant, tool' });
    await expect(ledger.record('s', [{ role: 'user', text: '' }])).rejects.toMatchObject({ message: 'message text must be non-empty' });
    await expect(ledger.record('nobody', [{ role: 'user', text: 'x' }])).rejects.toMatchObject({ message: 'unknown session `nobody` (`cordon pcodx sessions` lists the sessions of this ledger)' });
    await expect(ledger.record('s', [])).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED' });
    expect(rows(dbPath(), 'messages')).toEqual([]);
    // A failure late in a big batch (the database refuses row 550, in the second INSERT statement)
    // rolls back the 500 rows the first statement already wrote.
    const raw = new Database(dbPath());
    raw.exec(`create trigger refuse_late before insert on messages when new.seq = 550 begin select raise(abort, 'row 550 refused'); end`);
    raw.close();
    const batch = Array.from({ length: 600 }, (_, i) => ({ role: 'user' as const, text: `m${i}` }));
    await expect(ledger.record('s', batch)).rejects.toMatchObject({ code: 'CORDON_DB_ERROR', message: expect.stringContaining('row 550 refused') });
    expect(rows(dbPath(), 'messages')).toEqual([]);
  });
});

describe('compaction', () => {
  async function seeded(roles: Array<'user' | 'assistant' | 'tool' | 'system' | 'developer'>) {
    const ledger = await L.open(dbPath());
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', roles.map((role, i) => ({ role, text: `text ${i + 1}` })));
    return ledger;
  }

  it('stores a compaction (msg ids even for cmp endpoints) and never changes the original messages', async () => {
    const ledger = await seeded(['user', 'assistant', 'assistant', 'assistant', 'assistant']);
    const before = rows(dbPath(), 'messages');
    const first = await ledger.compact('s', [{ from: 'msg2', to: 'msg3', summary: 'first' }]);
    expect(first).toMatchObject({ stored: true, nMessagesReplaced: 2, visibleIds: ['msg1', 'cmp1', 'msg4', 'msg5'], activeCompactions: 1, totalKnownMessagesReplaced: 2 });
    expect(first.ranges[0]).toMatchObject({ id: 'cmp1', from: 'msg2', to: 'msg3', supersedes: [] });
    expect(first.ranges[0]!.warning).toBeUndefined();
    const nested = await ledger.compact('s', [{ from: 'cmp1', to: 'msg4', summary: 'second' }]);
    expect(nested.ranges[0]).toMatchObject({ id: 'cmp2', fromSeq: 2, toSeq: 4, nMessagesReplaced: 3, supersedes: ['cmp1'] });
    expect(nested.visibleIds).toEqual(['msg1', 'cmp2', 'msg5']);
    const stored = rows(dbPath(), 'compactions') as Array<Record<string, unknown>>;
    expect(stored.map((c) => [c.id, c.from_msg_id, c.to_msg_id, c.from_seq, c.to_seq, c.n_messages_replaced, c.superseded_by])).toEqual([
      ['cmp1', 'msg2', 'msg3', 2, 3, 2, 'cmp2'],
      ['cmp2', 'msg2', 'msg4', 2, 4, 3, null],
    ]);
    expect(rows(dbPath(), 'messages')).toEqual(before);
    expect(await ledger.render('s')).toBe('text 1\n<aboveturn id="msg1"/>\n\nsecond\n<aboveturn id="cmp2"/>\n\ntext 5\n<aboveturn id="msg5"/>');
  });

  it('compact-many stores all ranges in one go, ids in request order; one bad range stores none', async () => {
    const ledger = await seeded(['assistant', 'assistant', 'assistant', 'assistant', 'assistant', 'assistant']);
    await expect(ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'a' }, { from: 'msg4', to: 'msg9', summary: 'b' }])).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED' });
    expect(rows(dbPath(), 'compactions')).toEqual([]);
    const many = await ledger.compact('s', [
      { from: 'msg5', to: 'msg6', summary: 'late' },
      { from: 'msg1', to: 'msg2', summary: 'early' },
    ]);
    expect(many.ranges.map((x) => [x.id, x.from, x.to])).toEqual([
      ['cmp1', 'msg5', 'msg6'],
      ['cmp2', 'msg1', 'msg2'],
    ]);
    expect(many.visibleIds).toEqual(['cmp2', 'msg3', 'msg4', 'cmp1']);
    expect(many.nMessagesReplaced).toBe(4);
  });

  it('warns for ranges holding system, developer or user messages and still stores them', async () => {
    const ledger = await seeded(['system', 'user', 'assistant']);
    const result = await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'kept the rules' }]);
    expect(result.ranges[0]!.warning).toBe('range msg1..msg2 holds system, developer or user messages; its summary must preserve active instructions and human intent');
    expect(result.stored).toBe(true);
  });

  it('a dry run returns the render that would result and stores nothing', async () => {
    const ledger = await seeded(['assistant', 'assistant', 'assistant']);
    const before = rows(dbPath(), 'sessions');
    const dry = await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'gone' }], { dryRun: true });
    expect(dry).toMatchObject({ stored: false, visibleIds: ['cmp1', 'msg3'], render: 'gone\n<aboveturn id="cmp1"/>\n\ntext 3\n<aboveturn id="msg3"/>' });
    expect(rows(dbPath(), 'compactions')).toEqual([]);
    expect(rows(dbPath(), 'sessions')).toEqual(before);
    expect((await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'gone' }])).ranges[0]!.id).toBe('cmp1');
  });

  it('uncompact restores what was covered, reinstates nested compactions and never reuses the id', async () => {
    const ledger = await seeded(['assistant', 'assistant', 'assistant', 'assistant']);
    await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'inner' }]);
    await ledger.compact('s', [{ from: 'cmp1', to: 'msg3', summary: 'outer' }]);
    await expect(ledger.uncompact('s', 'cmp1')).rejects.toMatchObject({ message: 'compaction `cmp1` is inside `cmp2`; uncompact cmp2 first' });
    await expect(ledger.uncompact('s', 'cmp9')).rejects.toMatchObject({ message: 'unknown compaction `cmp9` in session `s`' });
    const undo = await ledger.uncompact('s', 'cmp2');
    expect(undo).toEqual({ sessionId: 's', compactionId: 'cmp2', nMessagesRestored: 1, reinstated: ['cmp1'], visibleIds: ['cmp1', 'msg3', 'msg4'] });
    await expect(ledger.uncompact('s', 'cmp2')).rejects.toMatchObject({ message: 'compaction `cmp2` was already undone (uncompacted) in session `s`' });
    await expect(ledger.uncompact('s', 'msg3')).rejects.toMatchObject({ message: '`msg3` is a message id, not a compaction id; uncompact takes a cmp id' });
    expect(await ledger.render('s')).toBe('inner\n<aboveturn id="cmp1"/>\n\ntext 3\n<aboveturn id="msg3"/>\n\ntext 4\n<aboveturn id="msg4"/>');
    expect((await ledger.compact('s', [{ from: 'msg3', to: 'msg4', summary: 'again' }])).ranges[0]!.id).toBe('cmp3');
    const all = await ledger.uncompact('s', 'cmp1');
    expect(all.nMessagesRestored).toBe(2);
    expect((rows(dbPath(), 'compactions') as Array<{ id: string }>).map((c) => c.id)).toEqual(['cmp3']);
  });

  it('fires beforeStore with the validated plan; an amended plan is validated again and stored', async () => {
    const seen: CompactionPlan[] = [];
    const ledger = await L.open(dbPath(), {
      beforeStore: async (plan) => {
        seen.push(plan);
        return { ...plan, ranges: plan.ranges.map((r) => ({ ...r, summary: `${r.summary} [reviewed]` })) };
      },
    });
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [{ role: 'user', text: 'ask' }, { role: 'assistant', text: 'answer' }]);
    await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'done' }]);
    expect(seen).toEqual([{ sessionId: 's', ranges: [{ from: 'msg1', to: 'msg2', summary: 'done' }], warnings: [expect.stringContaining('human intent')] }]);
    expect(await ledger.render('s')).toBe('done [reviewed]\n<aboveturn id="cmp1"/>');
  });

  it('a refusing or misbehaving beforeStore stores nothing', async () => {
    let mode: 'throw' | 'garbage' | 'invalid' = 'throw';
    const ledger = await L.open(dbPath(), {
      beforeStore: async (plan) => {
        if (mode === 'throw') throw new Error('not today');
        if (mode === 'garbage') return { nope: true } as never;
        return { ...plan, ranges: [{ from: 'msg2', to: 'msg1', summary: 'x' }] };
      },
    });
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [{ role: 'assistant', text: 'a' }, { role: 'assistant', text: 'b' }]);
    const ask = () => ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'x' }]);
    await expect(ask()).rejects.toThrow('not today');
    mode = 'garbage';
    await expect(ask()).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED', message: expect.stringContaining('other than a compaction plan') });
    mode = 'invalid';
    await expect(ask()).rejects.toMatchObject({ message: '`msg2` comes after `msg1`' });
    expect(rows(dbPath(), 'compactions')).toEqual([]);
  });

  it('is not called for requests that fail validation', async () => {
    let calls = 0;
    const ledger = await L.open(dbPath(), { beforeStore: async (plan) => (calls++, plan) });
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await expect(ledger.compact('s', [])).rejects.toThrow('provide at least one compaction range');
    await expect(ledger.compact('other', [{ from: 'msg1', to: 'msg1', summary: 'x' }])).rejects.toThrow('unknown session `other` (`cordon pcodx sessions` lists the sessions of this ledger)');
    expect(calls).toBe(0);
  });
});
