import { join } from 'node:path';
import { joinGuardRuns, readGuardRuns } from '../../control/guard-join.js';
import { TELEMETRY_DB_FILE } from './db/names.js';
import { openTelemetrySqlite, storeSessionSqlite } from './db/sqlite-store.js';
import { isPostgresUrl, machineName, storeTarget } from './db/target.js';
import { reduceSession, type ReducedSession } from './reduce-session.js';
import { selectSessions } from './sessions.js';
import { settleEndedSession } from '../sampler/state.js';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { plural } from '../../util/plural.js';

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
  /** With `all`: the sessions left out because one of their files cannot be read, each with why. */
  readonly skipped: SkippedSession[];
}

/** A session `reduce --all` went on without. */
export interface SkippedSession {
  /** The session's directory name under `runs/`. */
  readonly session: string;
  /** Why (`cannot read the session file …: is not a regular file (a FIFO); move it away …`). */
  readonly reason: string;
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
 * `CORDON_DB_ERROR` when the database cannot be used; `CORDON_BAD_STATE` when a session file
 * cannot be read (a FIFO, a directory: markers.ts `unreadableSessionFile`): for the one session
 * asked for, or with `all` only when no session could be read. With `all` a session that cannot
 * be read is left out and listed in `skipped`, as `cordon analyze` skips it, so one damaged
 * session does not keep every other from being stored.
 */
export async function reduce(options: ReduceOptions): Promise<ReduceResult> {
  const env = options.env ?? process.env;
  // The store first: a mistyped --db is the user's first mistake to hear of, even with no
  // session recorded yet (it was reported only once sessions existed).
  const target = storeTarget(options.db, join(options.dataDir, TELEMETRY_DB_FILE), env, 'write');
  const selected = selectSessions(options.dataDir, options);
  // A session that ended moments ago is read once its sampler has written its last samples (at
  // most ENDED_SESSION_WAIT_MS); one still running is read as it is and reported live.
  const reduced: Array<{ name: string; reduced: ReducedSession }> = [];
  const skipped: SkippedSession[] = [];
  for (const s of selected) {
    settleEndedSession(s.dir);
    try {
      reduced.push({ name: s.name, reduced: reduceSession(s.dir) });
    } catch (error) {
      if (!options.all || !(error instanceof CordonError) || error.code !== ERROR_CODES.BAD_STATE) throw error;
      skipped.push({ session: s.name, reason: error.message });
    }
  }
  if (reduced.length === 0 && skipped.length > 0) {
    const only = skipped.length === 1 ? skipped[0]!.reason : `none of the ${plural(skipped.length, 'recorded session')} could be read: ${skipped.map((s) => `session ${s.session}: ${s.reason}`).join('; ')}`;
    throw new CordonError(ERROR_CODES.BAD_STATE, only, { details: { sessions: skipped.map((s) => s.session) } });
  }
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
  return { db: dbPath, sessions: reduced.map(({ reduced: r }) => (runs.length ? { ...r, calls: joinGuardRuns(r.summary.session_id, r.calls, runs) } : r)), skipped };
}
