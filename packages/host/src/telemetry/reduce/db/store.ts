import { sql, SqliteAdapter, type Kysely } from 'kysely';
import type { ReducedSession } from '../reduce-session.js';
import { CordonError, ERROR_CODES } from '../../../errors/index.js';
import type { TelemetrySchema } from './schema.js';
import { machineName } from './target.js';
import { writeTransaction } from '../../../ledger/transaction.js';
import { storableSession } from './stored-text.js';

/** Rows per insert statement (7–16 columns each, far under SQLite's bound-parameter limit). */
const BATCH = 500;

/**
 * Stores one reduced session, replacing whatever an earlier `cordon reduce` stored for the same
 * session id, in one transaction (all or nothing), so reducing again is idempotent. Every row
 * carries `machine` (default {@link machineName}). Session ids are the agents' (UUIDs), unique
 * across machines; should another machine already hold the same id, the store refuses
 * (`CORDON_DB_ERROR`) rather than replace that machine's rows.
 */
export async function storeSession(db: Kysely<TelemetrySchema>, reduced: ReducedSession, dirName: string, reducedAt = Date.now(), machine = machineName()): Promise<void> {
  // Agent-written text PostgreSQL cannot hold (NUL, lone surrogates) becomes U+FFFD in both stores.
  const { summary, calls, samples } = storableSession(reduced);
  const id = summary.session_id;
  await writeSessionTransaction(db, id, async (trx) => {
    const held = await trx.selectFrom('sessions').select('machine').where('session_id', '=', id).executeTakeFirst();
    if (held && held.machine !== '' && held.machine !== machine) {
      throw new CordonError(ERROR_CODES.DB_ERROR, `session ${JSON.stringify(id)} is already stored by machine ${JSON.stringify(held.machine)}; this machine (${JSON.stringify(machine)}) leaves it unchanged`, { details: { session_id: id, machine: held.machine } });
    }
    await trx.deleteFrom('samples').where('session_id', '=', id).execute();
    await trx.deleteFrom('tool_calls').where('session_id', '=', id).execute();
    await trx.deleteFrom('sessions').where('session_id', '=', id).execute();
    await trx
      .insertInto('sessions')
      .values({
        session_id: id,
        machine,
        dir_name: dirName,
        agent: summary.agent,
        reduced_at: reducedAt,
        first_ts: summary.first_ts,
        last_ts: summary.last_ts,
        ended: summary.ended ? 1 : 0,
        n_markers: summary.n_markers,
        bad_markers: summary.bad_markers,
        n_samples: summary.n_samples,
        bad_samples: summary.bad_samples,
        n_toolcalls: summary.n_toolcalls,
        unpaired_starts: summary.unpaired_starts,
        orphan_ends: summary.orphan_ends,
        denied_calls: summary.denied_calls,
        short_calls: summary.short_calls,
        partial_samples: summary.partial_samples,
        span_ms: summary.span_ms,
        tool_time_ms: summary.tool_time_ms,
        tool_time_fraction: summary.tool_time_fraction,
        baseline_memory_mb: summary.baseline_memory_mb,
        peak_memory_mb: summary.peak_memory_mb,
        avg_memory_mb: summary.avg_memory_mb,
        avg_cpu_pct: summary.avg_cpu_pct,
        sampler_starts: summary.sampler_starts,
        sampler_stop_reasons: JSON.stringify(summary.sampler_stop_reasons),
        hook_ms: summary.hook_ms,
        sampler_cpu_ms: summary.sampler_cpu_ms,
        loops_broken: summary.loops_broken,
        span_start_ts: summary.span_start_ts,
        span_end_ts: summary.span_end_ts,
        live: summary.live ? 1 : 0,
      })
      .execute();
    for (let i = 0; i < calls.length; i += BATCH) {
      await trx.insertInto('tool_calls').values(calls.slice(i, i + BATCH).map((c) => ({ ...c, session_id: id, machine }))).execute();
    }
    for (let i = 0; i < samples.length; i += BATCH) {
      await trx
        .insertInto('samples')
        .values(samples.slice(i, i + BATCH).map((s, j) => ({ session_id: id, machine, seq: i + j + 1, t: s.t, mem_mb: s.mem_mb, cpu_pct: s.cpu_pct, n_procs: s.n_procs, partial: s.partial ? 1 : 0 })))
        .execute();
    }
  });
}

/**
 * One write transaction for the rows of session `id` that concurrent `cordon reduce` runs (the
 * same session reduced by several processes, or machines) cannot interleave: SQLite takes its
 * write lock up front (`BEGIN IMMEDIATE`; a deferred transaction that reads first fails with
 * SQLITE_BUSY when another writer commits before it upgrades), PostgreSQL a transaction-scoped
 * advisory lock on the session id (a delete-then-insert would otherwise race to a duplicate key).
 */
async function writeSessionTransaction<T>(db: Kysely<TelemetrySchema>, id: string, fn: (trx: Kysely<TelemetrySchema>) => Promise<T>): Promise<T> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return writeTransaction(db, fn);
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${id}))`.execute(trx);
    return fn(trx);
  });
}
