import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, SqliteDialect, sql, type Migration } from 'kysely';
import { CordonError, ERROR_CODES } from '../../../errors/index.js';
import { TELEMETRY_MIGRATIONS } from './migrations.js';
import type { TelemetrySchema } from './schema.js';

/** File name of the telemetry database inside the data directory. */
export const TELEMETRY_DB_FILE = 'telemetry.sqlite3';

/** An open telemetry database. */
export interface TelemetryDb {
  readonly path: string;
  readonly db: Kysely<TelemetrySchema>;
  close(): Promise<void>;
}

/** The 16 bytes every SQLite 3 file starts with (sqlite.org/fileformat.html §1.3). */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Opens (creating it and its directory when missing) the telemetry database at `path` and brings
 * its schema to the latest of {@link TELEMETRY_MIGRATIONS} through kysely's `Migrator`.
 * Settings: WAL, foreign keys on, 10 s busy timeout. Errors as {@link openMigratedDb}.
 */
export async function openTelemetryDb(path: string): Promise<TelemetryDb> {
  return openMigratedDb<TelemetrySchema>(path, TELEMETRY_MIGRATIONS, 'telemetry');
}

/**
 * Opens (creating it and its directory when missing) one of cordon's SQLite databases at `path`
 * and brings its schema to the latest of `migrations` through kysely's `Migrator` (it records
 * them in `kysely_migration`). Settings: WAL, foreign keys on, 10 s busy timeout, so several
 * processes may write at once. `what` names the database in messages (`telemetry`, `control`).
 *
 * @throws CordonError `CORDON_DB_ERROR` (exit 2), leaving the file unchanged, when it is not
 * SQLite, holds other tables but no migration record, or was migrated by a newer cordon (a
 * migration name this build does not know); also when better-sqlite3 cannot load.
 */
export async function openMigratedDb<S>(path: string, migrations: Readonly<Record<string, Migration>>, what: string): Promise<{ readonly path: string; readonly db: Kysely<S>; close(): Promise<void> }> {
  refuseNonSqlite(path);
  mkdirSync(dirname(path), { recursive: true });
  let raw: import('better-sqlite3').Database;
  try {
    const { default: Database } = await import('better-sqlite3');
    raw = new Database(path, { timeout: 10_000 });
  } catch (error) {
    throw dbError(path, `cannot open ${what} database ${path}: ${(error as Error).message}`, error);
  }
  const db = new Kysely<S>({ dialect: new SqliteDialect({ database: raw }) });
  try {
    raw.pragma('foreign_keys = ON');
    const tables = raw.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[];
    if (tables.length > 0 && !tables.includes('kysely_migration')) {
      throw dbError(path, `${path} is an SQLite database but not cordon's ${what} database (no kysely_migration table); it was left unchanged`);
    }
    if (tables.includes('kysely_migration')) {
      const done = raw.prepare('select name from kysely_migration').pluck().all() as string[];
      const unknown = done.filter((name) => !(name in migrations));
      if (unknown.length) {
        throw dbError(path, `${what} database ${path} has schema migrations this cordon does not know (${unknown.join(', ')}): it was written by a newer cordon and was left unchanged`);
      }
    }
    raw.pragma('journal_mode = WAL');
    const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...migrations }) } });
    const { error } = await migrator.migrateToLatest();
    if (error) throw dbError(path, `cannot migrate ${what} database ${path}: ${(error as Error).message ?? String(error)}`, error);
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw error instanceof CordonError ? error : dbError(path, `cannot open ${what} database ${path}: ${(error as Error).message}`, error);
  }
  return { path, db, close: () => db.destroy() };
}

function refuseNonSqlite(path: string): void {
  if (!existsSync(path) || statSync(path).size === 0) return;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!head.equals(SQLITE_HEADER)) throw dbError(path, `${path} is not an SQLite database; it was left unchanged: move it away or pass another --db`);
}

function dbError(path: string, message: string, cause?: unknown): CordonError {
  return new CordonError(ERROR_CODES.DB_ERROR, message, { cause, details: { path } });
}
