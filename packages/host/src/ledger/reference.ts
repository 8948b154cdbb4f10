import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { dbError } from './errors.js';
import { checkLedgerRows } from './integrity.js';
import { inspectLayout } from './layout.js';
import { createLedgerTables, LEDGER_MIGRATIONS, LEDGER_SCHEMA_VERSION } from './migrations.js';
import type { LedgerSchema } from './schema.js';
import { writeTransaction } from './transaction.js';

/** The prefix the reference's tables get while their rows are copied (dropped before commit). */
const OLD = 'pcodx_reference_';

/**
 * Rebuilds a ledger the reference pcodx wrote (its schema version 1, see `layout.ts`) into
 * cordon's schema {@link LEDGER_SCHEMA_VERSION}, in one write transaction, so any failure (a
 * damaged row, a lock held past the busy timeout, a full disk) rolls back and leaves the file
 * as it was. Call it before the connection changes the file in any other way (journal mode,
 * file mode): until it commits, the file is the reference's.
 *
 * Every row is kept: sessions (with their write order and correlation ids), messages byte for
 * byte, and compactions. The reference deletes the compactions a new one covers, so every
 * stored compaction is active (`superseded_by` null), and its next compaction id is above the
 * highest in use, which becomes `last_compaction_seq`. `session_write_order` (the reference's
 * counter behind `sessions.updated_order`) is dropped: cordon takes the next order from the
 * sessions themselves. `schema_meta` keeps its other keys.
 *
 * The rows are checked before anything is written (`checkLedgerRows`, the reference's layout)
 * and again, with the foreign keys, before the commit; a bad row is `CORDON_DB_ERROR` naming
 * the file and the row. A file another process migrated meanwhile is left alone.
 */
export async function migrateReferenceLedger(db: Kysely<LedgerSchema>, raw: BetterSqlite3.Database, path: string): Promise<void> {
  checkLedgerRows(raw, path, 'reference');
  await writeTransaction(db, async (trx) => {
    // Again under the write lock: another process may have upgraded the file since.
    if (inspectLayout(path, raw).kind !== 'reference') return;
    checkLedgerRows(raw, path, 'reference');
    for (const table of ['compactions', 'messages', 'sessions']) await sql`alter table ${sql.id(table)} rename to ${sql.id(OLD + table)}`.execute(trx);
    await createLedgerTables(trx);
    for (const step of LEDGER_MIGRATIONS) if (step.version > 1) await step.up(trx);
    await sql`insert into sessions (id, cwd, created_at_ms, updated_at_ms, updated_order, usage_correlation_id, upstream_session_id, kv_cache_boundary, last_compaction_seq)
      select s.id, s.cwd, s.created_at_ms, s.updated_at_ms, s.updated_order, s.usage_correlation_id, s.upstream_session_id, s.kv_cache_boundary,
        coalesce((select max(c.seq) from ${sql.id(`${OLD}compactions`)} c where c.session_id = s.id), 0)
      from ${sql.id(`${OLD}sessions`)} s`.execute(trx);
    await sql`insert into messages (session_id, id, seq, role, text, source, created_at_ms, is_human_prompt, preserve_warning)
      select session_id, id, seq, role, text, source, created_at_ms, is_human_prompt, preserve_warning from ${sql.id(`${OLD}messages`)} order by session_id, seq`.execute(trx);
    await sql`insert into compactions (session_id, id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, created_at_ms, n_messages_replaced, superseded_by)
      select session_id, id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, created_at_ms, n_messages_replaced, null from ${sql.id(`${OLD}compactions`)}`.execute(trx);
    // Children first: with foreign keys on, dropping a parent deletes its rows.
    for (const table of [`${OLD}compactions`, `${OLD}messages`, 'session_write_order', `${OLD}sessions`]) await sql`drop table ${sql.id(table)}`.execute(trx);
    await sql`update schema_meta set value = ${String(LEDGER_SCHEMA_VERSION)} where key = 'schema_version'`.execute(trx);
    checkLedgerRows(raw, path);
    const orphan = raw.prepare('pragma foreign_key_check').get() as { table: string; rowid: number; parent: string } | undefined;
    if (orphan) throw dbError(path, `ledger database ${path} is damaged: a ${orphan.table} row (rowid ${orphan.rowid}) names a ${orphan.parent} row that does not exist; it was left unchanged`);
  });
}
