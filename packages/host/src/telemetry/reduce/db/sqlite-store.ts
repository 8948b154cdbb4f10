import type { Database } from 'better-sqlite3';
import { CordonError, ERROR_CODES } from '../../../errors/index.js';
import type { ReducedSession } from '../reduce-session.js';
import { TELEMETRY_MIGRATIONS } from './migrations.js';
import { openSqliteFile } from './sqlite-file.js';
import { storableSession } from './stored-text.js';

/** The telemetry SQLite file opened without kysely, by {@link openTelemetrySqlite}. */
export interface TelemetrySqlite {
  readonly path: string;
  /** The better-sqlite3 connection. */
  readonly raw: Database;
  close(): void;
}

/**
 * Opens the telemetry database at `path` for `cordon reduce` with better-sqlite3 alone: kysely
 * (some 260 modules) loads only when the file lacks a migration (a new file, or one an older
 * cordon wrote), to run them as `openTelemetryDb` does; then the file is opened again. Same
 * file modes, settings and refusals as `openTelemetryDb`.
 * @throws CordonError `CORDON_DB_ERROR` as `openTelemetryDb`.
 */
export async function openTelemetrySqlite(path: string): Promise<TelemetrySqlite> {
  const names = Object.keys(TELEMETRY_MIGRATIONS);
  let file = await openSqliteFile(path, names, 'telemetry');
  if (file.pending.length) {
    file.raw.close();
    // Run from the fast route's bundle out of V8's code cache, Node 20 refuses this import()
    // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): the error sends that run through oclif, which
    // migrates. Nothing was written before it.
    const { openTelemetryDb } = await import('./open.js');
    await (await openTelemetryDb(path)).close();
    file = await openSqliteFile(path, names, 'telemetry');
  }
  const { raw } = file;
  return { path, raw, close: () => raw.close() };
}

const SESSION_COLUMNS = [
  'session_id',
  'machine',
  'dir_name',
  'agent',
  'reduced_at',
  'first_ts',
  'last_ts',
  'ended',
  'n_markers',
  'bad_markers',
  'n_samples',
  'bad_samples',
  'n_toolcalls',
  'unpaired_starts',
  'orphan_ends',
  'denied_calls',
  'short_calls',
  'partial_samples',
  'span_ms',
  'tool_time_ms',
  'tool_time_fraction',
  'baseline_memory_mb',
  'peak_memory_mb',
  'avg_memory_mb',
  'avg_cpu_pct',
  'sampler_starts',
  'sampler_stop_reasons',
  'hook_ms',
  'sampler_cpu_ms',
  'loops_broken',
  'span_start_ts',
  'span_end_ts',
  'live',
] as const;
const CALL_COLUMNS = ['session_id', 'machine', 'seq', 'call_key', 'tool_name', 'tool', 'command', 'start_ts', 'end_ts', 'duration_ms', 'peak_memory_mb', 'avg_memory_mb', 'avg_cpu_pct', 'n_samples', 'exit_status', 'exit_code', 'hook_overhead_ms'] as const;
const SAMPLE_COLUMNS = ['session_id', 'machine', 'seq', 't', 'mem_mb', 'cpu_pct', 'n_procs', 'partial'] as const;

/**
 * Rows per insert statement: one statement binds ROWS × columns values (at most 64 × 17 = 1,088,
 * under SQLite's default limit of 32,766 bound parameters), so a 50,000-sample session takes
 * some 800 statement runs instead of 50,000 calls into SQLite.
 */
const ROWS = 64;

function insertSql(table: string, columns: readonly string[], rows: number): string {
  const row = `(${columns.map(() => '?').join(', ')})`;
  return `insert into ${table} (${columns.join(', ')}) values ${Array.from({ length: rows }, () => row).join(', ')}`;
}

/**
 * Inserts `count` rows into `table`, `ROWS` per statement through two prepared statements (a full
 * batch and the remainder); `fill(i, values)` pushes row `i`'s values in `columns` order.
 */
function insertRows(raw: Database, table: string, columns: readonly string[], count: number, fill: (i: number, values: unknown[]) => void): void {
  const full = count >= ROWS ? raw.prepare(insertSql(table, columns, ROWS)) : undefined;
  const values: unknown[] = [];
  let i = 0;
  for (; i + ROWS <= count; i += ROWS) {
    values.length = 0;
    for (let j = i; j < i + ROWS; j++) fill(j, values);
    full!.run(values);
  }
  if (i < count) {
    values.length = 0;
    for (let j = i; j < count; j++) fill(j, values);
    raw.prepare(insertSql(table, columns, count - i)).run(values);
  }
}

/**
 * Stores one reduced session in the telemetry SQLite file, replacing whatever an earlier `cordon
 * reduce` stored for the same session id, in one `BEGIN IMMEDIATE` transaction (all or nothing;
 * concurrent reduces of one session cannot interleave), with prepared multi-row inserts. The rows
 * are the ones `storeSession` (kysely, used for PostgreSQL) writes, value for value. A session id
 * another machine already stored is refused, as there.
 * @throws CordonError `CORDON_DB_ERROR` for another machine's session; SQLite errors propagate.
 */
export function storeSessionSqlite(raw: Database, reduced: ReducedSession, dirName: string, reducedAt: number, machine: string): void {
  // Agent-written text PostgreSQL cannot hold (NUL, lone surrogates) becomes U+FFFD in both stores.
  const { summary, calls, samples } = storableSession(reduced);
  const id = summary.session_id;
  raw
    .transaction(() => {
      const held = raw.prepare('select machine from sessions where session_id = ?').get(id) as { machine: string } | undefined;
      if (held && held.machine !== '' && held.machine !== machine) {
        throw new CordonError(ERROR_CODES.DB_ERROR, `session ${JSON.stringify(id)} is already stored by machine ${JSON.stringify(held.machine)}; this machine (${JSON.stringify(machine)}) leaves it unchanged`, { details: { session_id: id, machine: held.machine } });
      }
      for (const table of ['samples', 'tool_calls', 'sessions']) raw.prepare(`delete from ${table} where session_id = ?`).run(id);
      const s = summary;
      raw.prepare(insertSql('sessions', SESSION_COLUMNS, 1)).run([
        id,
        machine,
        dirName,
        s.agent,
        reducedAt,
        s.first_ts,
        s.last_ts,
        s.ended ? 1 : 0,
        s.n_markers,
        s.bad_markers,
        s.n_samples,
        s.bad_samples,
        s.n_toolcalls,
        s.unpaired_starts,
        s.orphan_ends,
        s.denied_calls,
        s.short_calls,
        s.partial_samples,
        s.span_ms,
        s.tool_time_ms,
        s.tool_time_fraction,
        s.baseline_memory_mb,
        s.peak_memory_mb,
        s.avg_memory_mb,
        s.avg_cpu_pct,
        s.sampler_starts,
        JSON.stringify(s.sampler_stop_reasons),
        s.hook_ms,
        s.sampler_cpu_ms,
        s.loops_broken,
        s.span_start_ts,
        s.span_end_ts,
        s.live ? 1 : 0,
      ]);
      insertRows(raw, 'tool_calls', CALL_COLUMNS, calls.length, (i, v) => {
        const c = calls[i]!;
        v.push(id, machine, c.seq, c.call_key, c.tool_name, c.tool, c.command, c.start_ts, c.end_ts, c.duration_ms, c.peak_memory_mb, c.avg_memory_mb, c.avg_cpu_pct, c.n_samples, c.exit_status, c.exit_code, c.hook_overhead_ms);
      });
      insertRows(raw, 'samples', SAMPLE_COLUMNS, samples.length, (i, v) => {
        const x = samples[i]!;
        v.push(id, machine, i + 1, x.t, x.mem_mb, x.cpu_pct, x.n_procs, x.partial ? 1 : 0);
      });
    })
    .immediate();
}
