import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

/** The reference pcodx's schema version 1, as recorded in fixtures/pcodx-reference/schema-v1.sql. */
export const REFERENCE_SCHEMA_SQL = readFileSync(fileURLToPath(new URL('./fixtures/pcodx-reference/schema-v1.sql', import.meta.url)), 'utf8');

/** The correlation ids of the two sessions of {@link makeReferenceLedger}. */
export const ALPHA_CORRELATION = `pcses-${'a1'.repeat(16)}`;
export const BETA_CORRELATION = `pcses-${'b2'.repeat(16)}`;

/** The messages of session `alpha`, in seq order (`msg1`…). */
export const ALPHA_MESSAGES = [
  ['developer', 'Be brief.'],
  ['user', 'find the config loader\n'],
  ['assistant', 'calling grep'],
  ['tool', 'src/config.ts:1: export function load()'],
  ['assistant', 'it is src/config.ts'],
  ['user', 'fix the parser ✓ — naïve 日本語'],
  ['assistant', 'done'],
] as const;

/**
 * Writes, at `path`, a ledger as the reference pcodx leaves it (its schema version 1 and its
 * write rules): two sessions, `alpha` (7 messages; `cmp1` over msg3..msg4 was folded into `cmp2`
 * over msg2..msg4, and the reference deletes the covered row) written last, and `beta`
 * (1 message). `mutate` may change rows before the file is closed (a damaged file). Returns
 * nothing; the file is closed, in the default rollback-journal mode, as the reference uses it.
 */
export function makeReferenceLedger(path: string, mutate?: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    db.exec(REFERENCE_SCHEMA_SQL);
    db.prepare(`insert into schema_meta (key, value) values ('session_write_order_legacy_fence', '0')`).run();
    const session = db.prepare(`insert into sessions (id, cwd, created_at_ms, updated_at_ms, updated_order, usage_correlation_id) values (?, ?, ?, ?, ?, ?)`);
    const order = () => Number(db.prepare('insert into session_write_order default values').run().lastInsertRowid);
    session.run('beta', '/work/beta', 1_700_000_000_000, 1_700_000_000_500, order(), BETA_CORRELATION);
    session.run('alpha', '/work/alpha', 1_700_000_001_000, 1_700_000_009_000, order(), ALPHA_CORRELATION);
    const message = db.prepare(`insert into messages (id, session_id, seq, role, text, source, created_at_ms, is_human_prompt, preserve_warning) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    ALPHA_MESSAGES.forEach(([role, text], i) => {
      const seq = i + 1;
      message.run(`msg${seq}`, 'alpha', seq, role, text, seq === 6 ? 'cli-turn' : null, 1_700_000_002_000 + seq, role === 'user' ? 1 : 0, ['system', 'developer', 'user'].includes(role) ? 1 : 0);
    });
    message.run('msg1', 'beta', 1, 'user', 'hello from beta', 'cli-turn', 1_700_000_000_100, 1, 1);
    db.prepare(
      `insert into compactions (id, session_id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, created_at_ms, n_messages_replaced) values ('cmp2', 'alpha', 2, 'msg2', 'msg4', 2, 4, 'loader is src/config.ts', 1_700_000_008_000, 3)`,
    ).run();
    db.prepare('update sessions set updated_order = ? where id = ?').run(order(), 'alpha');
    mutate?.(db);
  } finally {
    db.close();
  }
}
