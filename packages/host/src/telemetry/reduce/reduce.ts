import { join } from 'node:path';
import { joinGuardRuns, readGuardRuns } from '../../control/guard-join.js';
import { TELEMETRY_DB_FILE } from './db/names.js';
import { openTelemetrySqlite, storeSessionSqlite } from './db/sqlite-store.js';
import { isPostgresUrl, machineName, storeTarget } from './db/target.js';
import { reduceSession, type ReducedSession } from './reduce-session.js';
import { selectSessions } from './sessions.js';
import { settleEndedSession } from '../sampler/state.js';

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
 * `cordon reduce`: reduces the selected sessions (uncoalesced/cordon) and stores each
 * in the telemetry database, replacing its previous reduction. A session that has ended but whose
 * sampler is still writing is waited for (bounded, `settleEndedSession`); one still sampled is
 * reduced as it stands and marked `live`. An SQLite file is written through
 * better-sqlite3's prepared statements (kysely loads only to migrate a new file); a PostgreSQL
 * store through kysely (`storeSession`).
 * @throws CordonError `CORDON_BAD_INPUT` when the directory of a store the user named (`--db`,
 * `CORDON_DB`) does not exist (db/target.ts `storeTarget`: none is created; checked before the
 * sessions, so this is said even when none is recorded), or when no session matches;
 * `CORDON_DB_ERROR` when the database cannot be used.
 */
export async function reduce(options: ReduceOptions): Promise<ReduceResult> {
  const env = options.env ?? process.env;
  // The store first: a mistyped --db is the user's first mistake to hear of, even with no
  // session recorded yet (it was reported only once sessions existed).
  const target = storeTarget(options.db, join(options.dataDir, TELEMETRY_DB_FILE), env, 'write');
  const selected = selectSessions(options.dataDir, options);
  // A session that ended moments ago is read once its sampler has written its last samples (at
  // most ENDED_SESSION_WAIT_MS); one still running is read as it is and reported live.
  const reduced = selected.map((s) => (settleEndedSession(s.dir), { name: s.name, reduced: reduceSession(s.dir) }));
  const machine = machineName(env);
  let dbPath: string;
  if (isPostgresUrl(target)) {
    const [{ openTelemetryStore }, { storeSession }] = await Promise.all([import('./db/target.js'), import('./db/store.js')]);
    const db = await openTelemetryStore(target);
    dbPath = db.path;
    try {
      for (const { name, reduced: r } of reduced) await storeSession(db.db, r, name, Date.now(), machine);
    } finally {
      await db.close();
    }
  } else {
    const db = await openTelemetrySqlite(target);
    dbPath = db.path;
    try {
      for (const { name, reduced: r } of reduced) storeSessionSqlite(db.raw, r, name, Date.now(), machine);
    } finally {
      db.close();
    }
  }
  // Guarded calls (`cordon control guard`) are shown with the `control run` that ran them
  // (`<data>/control/runs.jsonl` keeps those records; the database keeps the calls).
  const runs = readGuardRuns(options.dataDir);
  return { db: dbPath, sessions: reduced.map(({ reduced: r }) => (runs.length ? { ...r, calls: joinGuardRuns(r.summary.session_id, r.calls, runs) } : r)) };
}
