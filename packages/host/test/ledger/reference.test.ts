import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LEDGER_SCHEMA_VERSION } from '../../src/ledger/index.js';
import { ledgerSandbox } from './helpers.js';
import { ALPHA_CORRELATION, ALPHA_MESSAGES, BETA_CORRELATION, makeReferenceLedger } from './reference-files.js';

const { L, dir } = ledgerSandbox();

/** Everything "untouched" compares: the bytes, the mode, and which companion files exist. */
function fileState(path: string): string {
  const companions = ['-wal', '-shm', '-journal'].filter((s) => existsSync(path + s)).join(',');
  return `${createHash('sha256').update(readFileSync(path)).digest('hex')} mode=${(statSync(path).mode & 0o777).toString(8)} companions=[${companions}]`;
}

function rows(path: string, query: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(query).all();
  } finally {
    db.close();
  }
}

/**
 * The schema objects of a file, as SQLite stores their definitions; `schema_meta` (kept from the
 * reference's file, spelled its way) by its columns.
 */
const schemaOf = (path: string) => [
  rows(path, `select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' and name != 'schema_meta' order by type, name`),
  rows(path, `select name, type, "notnull", pk from pragma_table_info('schema_meta')`),
];

const messagesQuery = 'select session_id, id, seq, role, text, source, created_at_ms, is_human_prompt, preserve_warning from messages order by session_id, seq';

describe('a ledger the reference pcodx wrote (its schema version 1)', () => {
  it('is rebuilt into cordon’s schema with every row kept, and every command works on it afterwards', async () => {
    const path = join(dir(), 'pcodx.sqlite3');
    makeReferenceLedger(path);
    chmodSync(path, 0o644);
    const messagesBefore = rows(path, messagesQuery);
    const sessionsBefore = rows(path, 'select id, cwd, created_at_ms, updated_at_ms, updated_order, usage_correlation_id, upstream_session_id, kv_cache_boundary from sessions order by id');
    const compactionsBefore = rows(path, 'select session_id, id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, created_at_ms, n_messages_replaced from compactions');

    const ledger = await L.open(path);
    // Same rows, byte for byte.
    expect(rows(path, messagesQuery)).toEqual(messagesBefore);
    expect(rows(path, 'select id, cwd, created_at_ms, updated_at_ms, updated_order, usage_correlation_id, upstream_session_id, kv_cache_boundary from sessions order by id')).toEqual(sessionsBefore);
    expect(rows(path, 'select session_id, id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, created_at_ms, n_messages_replaced from compactions')).toEqual(compactionsBefore);
    expect(rows(path, 'select id, last_compaction_seq from sessions order by id')).toEqual([
      { id: 'alpha', last_compaction_seq: 2 },
      { id: 'beta', last_compaction_seq: 0 },
    ]);
    expect(rows(path, `select value from schema_meta where key = 'schema_version'`)).toEqual([{ value: String(LEDGER_SCHEMA_VERSION) }]);
    // Exactly the schema of a ledger cordon made itself.
    const fresh = join(dir(), 'fresh.sqlite3');
    await L.open(fresh);
    expect(schemaOf(path)).toEqual(schemaOf(fresh));
    // Now cordon's: WAL, owner-only.
    expect(rows(path, 'pragma journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    // The reads.
    expect((await ledger.lastSession())?.id).toBe('alpha');
    expect((await ledger.getSession('beta'))?.usageCorrelationId).toBe(BETA_CORRELATION);
    expect((await ledger.getSession('alpha'))?.usageCorrelationId).toBe(ALPHA_CORRELATION);
    const block = (text: string, id: string) => `${text}\n<aboveturn id="${id}"/>`;
    const m = (seq: number) => block(ALPHA_MESSAGES[seq - 1]![1], `msg${seq}`);
    expect(await ledger.render('alpha')).toBe([m(1), block('loader is src/config.ts', 'cmp2'), m(5), m(6), m(7)].join('\n\n'));
    expect(await ledger.visibleIds('alpha')).toEqual(['msg1', 'cmp2', 'msg5', 'msg6', 'msg7']);
    expect(await ledger.render('beta')).toBe(block('hello from beta', 'msg1'));

    // The writes: ids continue above the reference's; nesting and undo work.
    const [recorded] = await ledger.record('alpha', [{ role: 'user', text: 'next' }]);
    expect(recorded!.id).toBe('msg8');
    const compacted = await ledger.compact('alpha', [{ from: 'cmp2', to: 'msg5', summary: 'loader found' }]);
    expect(compacted.ranges[0]).toMatchObject({ id: 'cmp3', supersedes: ['cmp2'] });
    expect(await ledger.visibleIds('alpha')).toEqual(['msg1', 'cmp3', 'msg6', 'msg7', 'msg8']);
    await ledger.uncompact('alpha', 'cmp3');
    expect(await ledger.visibleIds('alpha')).toEqual(['msg1', 'cmp2', 'msg5', 'msg6', 'msg7', 'msg8']);
    await L.closeAll();

    // Opened again: already cordon's, nothing to migrate, same answers.
    const again = await L.open(path);
    expect(await again.visibleIds('alpha')).toEqual(['msg1', 'cmp2', 'msg5', 'msg6', 'msg7', 'msg8']);
  });

  it('with a damaged row is refused untouched: bytes, mode and journal files as they were', async () => {
    const path = join(dir(), 'pcodx.sqlite3');
    makeReferenceLedger(path, (db) => db.prepare(`update compactions set to_seq = 999999, to_msg_id = 'msg999999', n_messages_replaced = 999998 where id = 'cmp2'`).run());
    chmodSync(path, 0o644);
    const before = fileState(path);
    await expect(L.open(path)).rejects.toMatchObject({
      code: 'CORDON_DB_ERROR',
      message: expect.stringMatching(new RegExp(`^ledger database ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged: compactions row "cmp2" of session "alpha": its range msg2\\.\\.msg999999 names a message that does not exist \\(the session has msg1\\.\\.msg7\\); it was left unchanged`)),
    });
    expect(fileState(path)).toBe(before);
    expect(fileState(path)).toContain('mode=644 companions=[]');
  });

  it('in an older layout of the reference (before its later columns) is refused untouched, with the way out', async () => {
    const path = join(dir(), 'old.sqlite3');
    makeReferenceLedger(path, (db) => db.exec('alter table messages drop column preserve_warning'));
    const before = fileState(path);
    await expect(L.open(path)).rejects.toMatchObject({
      code: 'CORDON_DB_ERROR',
      message: expect.stringContaining(`ledger database ${path} looks like one the reference pcodx wrote, but not in its schema version 1 layout, the one this cordon upgrades (messages has no column preserve_warning); it was left unchanged: open it once with the current reference pcodx`),
    });
    expect(fileState(path)).toBe(before);
  });

  it('that cannot be rebuilt to the end (another process holds it past the busy timeout) is left exactly as it was, and is rebuilt later', async () => {
    const path = join(dir(), 'pcodx.sqlite3');
    makeReferenceLedger(path);
    chmodSync(path, 0o640);
    const before = fileState(path);
    // A reader in the middle of a read transaction: the rebuild can write its pages but cannot commit.
    const reader = new Database(path, { readonly: true });
    reader.exec('begin');
    reader.prepare('select count(*) from messages').get();
    try {
      await expect(L.open(path, { busyTimeoutMs: 200 })).rejects.toMatchObject({ code: 'CORDON_DB_ERROR', message: expect.stringContaining(path) });
    } finally {
      reader.exec('rollback');
      reader.close();
    }
    expect(fileState(path)).toBe(before);
    expect(rows(path, `select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)).toEqual(
      ['compactions', 'messages', 'schema_meta', 'session_write_order', 'sessions'].map((name) => ({ name })),
    );
    const ledger = await L.open(path);
    expect(await ledger.visibleIds('alpha')).toEqual(['msg1', 'cmp2', 'msg5', 'msg6', 'msg7']);
  });
});

describe('the reference’s sessions without a recorded write order', () => {
  it('make --last (the last-written session) an error until a session is written, as in the reference', async () => {
    const path = join(dir(), 'pcodx.sqlite3');
    // Both sessions were written before the reference recorded a write order, with equal timestamps.
    makeReferenceLedger(path, (db) => db.exec(`update sessions set updated_order = 0, created_at_ms = 1, updated_at_ms = 1; delete from session_write_order`));
    const ledger = await L.open(path);
    await expect(ledger.lastSession()).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED', message: expect.stringContaining('cannot tell which session was written last') });
    await expect(ledger.resolveSession({ mode: 'existing' })).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED' });
    expect((await ledger.resolveSession({ mode: 'existing', id: 'beta' })).id).toBe('beta');
    await ledger.record('beta', [{ role: 'assistant', text: 'written now' }]);
    expect((await ledger.lastSession())?.id).toBe('beta');
  });
});

describe('rows the reference writes that cordon’s own writer would not', () => {
  it('a model-turn’s tool transcript right after the user prompt, and a compaction ending before a late tool result, are kept as they are', async () => {
    const path = join(dir(), 'pcodx.sqlite3');
    makeReferenceLedger(path, (db) => {
      const add = db.prepare(`insert into messages (id, session_id, seq, role, text, source, created_at_ms, is_human_prompt, preserve_warning) values (?, 'alpha', ?, ?, ?, 'codex-app-server:t:u', 0, ?, ?)`);
      add.run('msg8', 8, 'user', 'what next?', 1, 1);
      add.run('msg9', 9, 'tool', 'exec: ls', 0, 0);
      add.run('msg10', 10, 'assistant', 'nothing', 0, 0);
      add.run('msg11', 11, 'tool', 'late result', 0, 0);
      db.exec(`insert into compactions (id, session_id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, created_at_ms, n_messages_replaced) values ('cmp3', 'alpha', 3, 'msg8', 'msg10', 8, 10, 'a model turn', 0, 3)`);
    });
    const ledger = await L.open(path);
    expect(await ledger.visibleIds('alpha')).toEqual(['msg1', 'cmp2', 'msg5', 'msg6', 'msg7', 'cmp3', 'msg11']);
    expect(rows(path, `select id, role, text from messages where session_id = 'alpha' and seq >= 8 order by seq`)).toEqual([
      { id: 'msg8', role: 'user', text: 'what next?' },
      { id: 'msg9', role: 'tool', text: 'exec: ls' },
      { id: 'msg10', role: 'assistant', text: 'nothing' },
      { id: 'msg11', role: 'tool', text: 'late result' },
    ]);
  });
});

describe('a process killed while it upgrades a reference ledger', () => {
  it('leaves the file’s bytes and mode as they were; the next open recovers and upgrades it', async () => {
    const path = join(dir(), 'pcodx.sqlite3');
    makeReferenceLedger(path);
    chmodSync(path, 0o640);
    const bytes = readFileSync(path);
    // A reader holds the file, so the upgrade writes its rollback journal and then waits to commit.
    const reader = new Database(path, { readonly: true });
    reader.exec('begin');
    reader.prepare('select count(*) from messages').get();
    const worker = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/open-worker.mjs', import.meta.url)), path, '120000'], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((r) => worker.once('close', (_code, signal) => r(signal)));
    try {
      const deadline = Date.now() + 60_000;
      while (!existsSync(`${path}-journal`)) {
        if (Date.now() > deadline) throw new Error('the upgrade never started writing');
        await new Promise((r) => setTimeout(r, 10));
      }
      worker.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
      reader.exec('rollback');
      reader.close();
    }
    // Killed mid-upgrade: the database file itself is untouched (its journal is left for recovery).
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    const ledger = await L.open(path);
    expect(await ledger.visibleIds('alpha')).toEqual(['msg1', 'cmp2', 'msg5', 'msg6', 'msg7']);
    expect(rows(path, messagesQuery)).toHaveLength(8);
    expect(existsSync(`${path}-journal`)).toBe(false);
  });
});
