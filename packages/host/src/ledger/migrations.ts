import { sql, type Kysely } from 'kysely';
import type { LedgerSchema } from './schema.js';

/** One schema step. `up` uses only kysely's schema builder and portable SQL, so it also runs on PostgreSQL. */
export interface LedgerMigration {
  /** The `schema_meta.schema_version` this step produces. */
  readonly version: number;
  readonly up: (db: Kysely<any>) => Promise<void>;
}

/**
 * Every schema version in order. Append new steps; never edit a released one. A database whose
 * version is above the last entry was written by a newer cordon and is refused unchanged.
 */
export const LEDGER_MIGRATIONS: readonly LedgerMigration[] = [
  {
    version: 1,
    async up(db) {
      await db.schema
        .createTable('schema_meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await createLedgerTables(db);
    },
  },
  {
    // Every role of a session in seq order without reading message text: compaction validation
    // and the compaction roles of the render read this index only (`SessionReads.roleCodes`).
    // About 35 bytes per message; built once when a version-1 ledger is opened.
    version: 2,
    async up(db) {
      await db.schema.createIndex('messages_session_seq_role').on('messages').columns(['session_id', 'seq', 'role']).execute();
    },
  },
];

/** The schema version this build writes and understands. */
export const LEDGER_SCHEMA_VERSION = LEDGER_MIGRATIONS[LEDGER_MIGRATIONS.length - 1]!.version;

/** Typed helper so callers need not import kysely's `any` database. */
export type LedgerDb = Kysely<LedgerSchema>;

/**
 * The `sessions`, `messages` and `compactions` tables and their indexes as schema version 1
 * made them (without `schema_meta`): step 1 above, and the rebuild of a file the reference pcodx
 * wrote (`reference.ts`), which then applies the later steps.
 */
export async function createLedgerTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('cwd', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('updated_order', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('usage_correlation_id', 'text', (c) => c.notNull().unique())
    .addColumn('upstream_session_id', 'text')
    .addColumn('kv_cache_boundary', 'text', (c) => c.notNull().defaultTo('future_turn_only'))
    .addColumn('last_compaction_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('sessions_updated_order').on('sessions').column('updated_order').execute();
  await db.schema
    .createTable('messages')
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('system', 'developer', 'user', 'assistant', 'tool')`))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('is_human_prompt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('preserve_warning', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('messages_pk', ['session_id', 'id'])
    .addUniqueConstraint('messages_session_seq', ['session_id', 'seq'])
    .execute();
  await db.schema
    .createTable('compactions')
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('from_msg_id', 'text', (c) => c.notNull())
    .addColumn('to_msg_id', 'text', (c) => c.notNull())
    .addColumn('from_seq', 'bigint', (c) => c.notNull())
    .addColumn('to_seq', 'bigint', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('n_messages_replaced', 'bigint', (c) => c.notNull())
    .addColumn('superseded_by', 'text')
    .addPrimaryKeyConstraint('compactions_pk', ['session_id', 'id'])
    .addUniqueConstraint('compactions_session_seq', ['session_id', 'seq'])
    .addForeignKeyConstraint('compactions_from_msg', ['session_id', 'from_msg_id'], 'messages', ['session_id', 'id'])
    .addForeignKeyConstraint('compactions_to_msg', ['session_id', 'to_msg_id'], 'messages', ['session_id', 'id'])
    .addCheckConstraint('compactions_range_order', sql`from_seq <= to_seq`)
    .execute();
  await db.schema.createIndex('compactions_session_range').on('compactions').columns(['session_id', 'from_seq', 'to_seq']).execute();
}
