import type { Kysely, Migration } from 'kysely';

/**
 * The telemetry schema's versions, run by kysely's `Migrator` in name order (it records them in
 * `kysely_migration`). Append new entries; never edit a released one. Only kysely's schema builder
 * is used, so the same steps run on PostgreSQL.
 */
export const TELEMETRY_MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001_sessions_tool_calls_samples': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('sessions')
        .addColumn('session_id', 'text', (c) => c.primaryKey())
        .addColumn('dir_name', 'text', (c) => c.notNull())
        .addColumn('agent', 'text')
        .addColumn('reduced_at', 'double precision', (c) => c.notNull())
        .addColumn('first_ts', 'double precision')
        .addColumn('last_ts', 'double precision')
        .addColumn('ended', 'integer', (c) => c.notNull())
        .addColumn('n_markers', 'integer', (c) => c.notNull())
        .addColumn('bad_markers', 'integer', (c) => c.notNull())
        .addColumn('n_samples', 'integer', (c) => c.notNull())
        .addColumn('bad_samples', 'integer', (c) => c.notNull())
        .addColumn('n_toolcalls', 'integer', (c) => c.notNull())
        .addColumn('unpaired_starts', 'integer', (c) => c.notNull())
        .addColumn('orphan_ends', 'integer', (c) => c.notNull())
        .addColumn('denied_calls', 'integer', (c) => c.notNull())
        .addColumn('short_calls', 'integer', (c) => c.notNull())
        .addColumn('partial_samples', 'integer', (c) => c.notNull())
        .addColumn('span_ms', 'double precision', (c) => c.notNull())
        .addColumn('tool_time_ms', 'double precision', (c) => c.notNull())
        .addColumn('tool_time_fraction', 'double precision')
        .addColumn('baseline_memory_mb', 'double precision')
        .addColumn('peak_memory_mb', 'double precision')
        .addColumn('avg_memory_mb', 'double precision')
        .addColumn('avg_cpu_pct', 'double precision')
        .addColumn('sampler_starts', 'integer', (c) => c.notNull())
        .addColumn('sampler_stop_reasons', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('tool_calls')
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.session_id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('call_key', 'text', (c) => c.notNull())
        .addColumn('tool_name', 'text', (c) => c.notNull())
        .addColumn('tool', 'text', (c) => c.notNull())
        .addColumn('command', 'text', (c) => c.notNull())
        .addColumn('start_ts', 'double precision', (c) => c.notNull())
        .addColumn('end_ts', 'double precision', (c) => c.notNull())
        .addColumn('duration_ms', 'double precision', (c) => c.notNull())
        .addColumn('peak_memory_mb', 'double precision')
        .addColumn('avg_memory_mb', 'double precision')
        .addColumn('avg_cpu_pct', 'double precision')
        .addColumn('n_samples', 'integer', (c) => c.notNull())
        .addColumn('exit_status', 'text')
        .addColumn('exit_code', 'integer')
        .addColumn('hook_overhead_ms', 'double precision')
        .addPrimaryKeyConstraint('tool_calls_pk', ['session_id', 'seq'])
        .execute();
      await db.schema.createIndex('tool_calls_tool').on('tool_calls').columns(['tool', 'tool_name']).execute();
      await db.schema
        .createTable('samples')
        .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.session_id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('t', 'double precision', (c) => c.notNull())
        .addColumn('mem_mb', 'double precision', (c) => c.notNull())
        .addColumn('cpu_pct', 'double precision', (c) => c.notNull())
        .addColumn('n_procs', 'integer', (c) => c.notNull())
        .addColumn('partial', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('samples_pk', ['session_id', 'seq'])
        .execute();
    },
  },
  // Issue 20: many machines write one store; every row says which machine reduced it.
  '0002_machine': {
    async up(db: Kysely<any>): Promise<void> {
      for (const table of ['sessions', 'tool_calls', 'samples']) {
        await db.schema.alterTable(table).addColumn('machine', 'text', (c) => c.notNull().defaultTo('')).execute();
      }
    },
  },
  // Issue 28: cordon's own measured cost per session (the AgentSight overhead row of `cordon analyze`).
  '0003_cordon_cost': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('sessions').addColumn('hook_ms', 'double precision').execute();
      await db.schema.alterTable('sessions').addColumn('sampler_cpu_ms', 'double precision').execute();
    },
  },
  // Issue 31: the loops the hook's loop breaker broke, per session (`cordon analyze`).
  '0004_loop_breaker': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('sessions').addColumn('loops_broken', 'integer').execute();
    },
  },
  // The sampled span's bounds (from the command's start, to the session's end when it came between
  // two ticks) and whether a sampler was still writing when the session was reduced.
  '0005_sampled_span': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('sessions').addColumn('span_start_ts', 'double precision').execute();
      await db.schema.alterTable('sessions').addColumn('span_end_ts', 'double precision').execute();
      await db.schema.alterTable('sessions').addColumn('live', 'integer').execute();
    },
  },
});
