import { join } from 'node:path';
import { TELEMETRY_DB_FILE } from './db/open.js';
import { machineName, openTelemetryStore, resolveDbTarget } from './db/target.js';
import { storeSession } from './db/store.js';
import { reduceSession, type ReducedSession } from './reduce-session.js';
import { selectSessions } from './sessions.js';
import { joinGuardRuns, readGuardRuns } from '../../control/guard-join.js';

export { reduceSession, type ReducedSession, type SessionSummary, type ToolCallRecord } from './reduce-session.js';
export { pairCalls, unionLength, type Pairing, type PairedCall } from './pair.js';
export { readSamples, windowStats, type SampleLog, type WindowStats } from './samples.js';
export { listSessions, selectSessions, type SessionLocation } from './sessions.js';
export { openTelemetryDb, TELEMETRY_DB_FILE, type TelemetryDb } from './db/open.js';
export { storeSession } from './db/store.js';
export { isPostgresUrl, machineName, openTelemetryStore, redactUrl, resolveDbTarget } from './db/target.js';
export type { TelemetrySchema, SessionRow, ToolCallRow, SampleRow } from './db/schema.js';

/** Input of {@link reduce}. */
export interface ReduceOptions {
  /** cordon's data directory (sessions under `runs/`). */
  readonly dataDir: string;
  /** One session: the agent's session id or its directory name. */
  readonly session?: string;
  /** Every recorded session. Without `session` or `all`, the most recently active one. */
  readonly all?: boolean;
  /** Database: an SQLite path or a `postgres://` URL (default `CORDON_DB`, else `<dataDir>/telemetry.sqlite3`). */
  readonly db?: string;
  /** Environment for `CORDON_DB` and `CORDON_MACHINE` (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/** Result of {@link reduce}. */
export interface ReduceResult {
  /** The database written (a PostgreSQL URL with its password redacted). */
  readonly db: string;
  readonly sessions: ReducedSession[];
}

/**
 * `cordon reduce`: reduces the selected sessions (research/cordon-resource.md A.6) and stores each
 * in the telemetry database, replacing its previous reduction.
 * @throws CordonError `CORDON_BAD_INPUT` when no session matches, `CORDON_DB_ERROR` when the
 * database cannot be used.
 */
export async function reduce(options: ReduceOptions): Promise<ReduceResult> {
  const selected = selectSessions(options.dataDir, options);
  const env = options.env ?? process.env;
  const target = resolveDbTarget(options.db, join(options.dataDir, TELEMETRY_DB_FILE), env);
  const reduced = selected.map((s) => ({ name: s.name, reduced: reduceSession(s.dir) }));
  const db = await openTelemetryStore(target);
  const machine = machineName(env);
  try {
    for (const { name, reduced: r } of reduced) await storeSession(db.db, r, name, Date.now(), machine);
  } finally {
    await db.close();
  }
  // Guarded calls (`cordon control guard`) are shown with the `control run` that ran them
  // (`<data>/control/runs.jsonl` keeps those records; the database keeps the calls).
  const runs = readGuardRuns(options.dataDir);
  return { db: db.path, sessions: reduced.map(({ reduced: r }) => (runs.length ? { ...r, calls: joinGuardRuns(r.summary.session_id, r.calls, runs) } : r)) };
}
