import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, SqliteDialect, type Migration } from 'kysely';
import { CordonError, ERROR_CODES } from '../../../errors/index.js';
import { ensurePrivateDir, ensurePrivateFile, tightenPrivateFile } from '../../../io/index.js';
import { enableWal, writeTransaction } from '../../../ledger/transaction.js';
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
 * Opens (creating it 0600 and its directory 0700 when missing; an existing one the user owns is
 * made owner-only) the telemetry database at `path` and brings its schema to the latest of
 * {@link TELEMETRY_MIGRATIONS}. Settings and errors as {@link openMigratedDb}.
 */
export async function openTelemetryDb(path: string): Promise<TelemetryDb> {
  return openMigratedDb<TelemetrySchema>(path, TELEMETRY_MIGRATIONS, 'telemetry');
}

/**
 * Opens (creating it 0600 and its directory 0700 when missing; an existing one the user owns is
 * made owner-only) one of cordon's SQLite databases at `path` and brings its schema to the
 * latest of `migrations`, serialised across processes (see `migrate`). Settings: WAL, foreign
 * keys on, 10 s busy timeout, so several processes may write at once. `what` names the
 * database in messages (`telemetry`, `control`).
 *
 * @throws CordonError `CORDON_DB_ERROR` (exit 2), leaving the file unchanged, when it is not
 * SQLite, holds other tables but no migration record, or was migrated by a newer cordon (a
 * migration name this build does not know); also when better-sqlite3 cannot load.
 */
export async function openMigratedDb<S>(path: string, migrations: Readonly<Record<string, Migration>>, what: string): Promise<{ readonly path: string; readonly db: Kysely<S>; close(): Promise<void> }> {
  refuseNonSqlite(path);
  try {
    ensurePrivateDir(dirname(path));
    // Owner-only before SQLite creates it (its -wal and -shm take the database file's mode).
    if (!existsSync(path)) ensurePrivateFile(path);
  } catch (error) {
    throw dbError(path, `cannot create ${what} database ${path}: ${(error as Error).message}`, error);
  }
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
    // A committed migration holds its tables and its kysely_migration rows together, so this
    // read sees a finished schema or none, even while another process migrates.
    const tables = raw.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[];
    if (tables.length > 0 && !tables.includes(MIGRATION_TABLE)) {
      throw dbError(path, `${path} is an SQLite database but not cordon's ${what} database (no kysely_migration table); it was left unchanged`);
    }
    if (tables.includes(MIGRATION_TABLE)) refuseUnknownMigrations(path, what, migrations, raw.prepare(`select name from ${MIGRATION_TABLE}`).pluck().all() as string[]);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenPrivateFile(file);
    enableWal(raw, 10_000);
    await migrate(db as Kysely<any>, path, what, migrations);
  } catch (error) {
    await db.destroy();
    throw error instanceof CordonError ? error : dbError(path, `cannot open ${what} database ${path}: ${(error as Error).message}`, error);
  }
  return { path, db, close: () => db.destroy() };
}

/** The table kysely's `Migrator` keeps its record in; the same shape, so either can read it. */
const MIGRATION_TABLE = 'kysely_migration';

function refuseUnknownMigrations(path: string, what: string, migrations: Readonly<Record<string, Migration>>, done: readonly string[]): void {
  const unknown = done.filter((name) => !(name in migrations));
  if (unknown.length) {
    throw dbError(path, `${what} database ${path} has schema migrations this cordon does not know (${unknown.join(', ')}): it was written by a newer cordon and was left unchanged`);
  }
}

/**
 * Applies the pending `migrations` in name order inside one `BEGIN IMMEDIATE`
 * transaction: the first process to open a new file takes SQLite's write lock and migrates;
 * the others wait (busy timeout) and then find every migration recorded. kysely's own `Migrator`
 * does not lock on SQLite, so concurrent first uses raced ("table sessions already exists").
 * Rows go to `kysely_migration` (`name`, ISO `timestamp`) as kysely's `Migrator` writes them.
 */
async function migrate(db: Kysely<any>, path: string, what: string, migrations: Readonly<Record<string, Migration>>): Promise<void> {
  const names = Object.keys(migrations).sort();
  await writeTransaction(db, async (trx) => {
    await trx.schema
      .createTable(MIGRATION_TABLE)
      .ifNotExists()
      .addColumn('name', 'varchar(255)', (c) => c.notNull().primaryKey())
      .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
      .execute();
    const done = (await trx.selectFrom(MIGRATION_TABLE).select('name').execute()).map((r) => r.name as string);
    refuseUnknownMigrations(path, what, migrations, done);
    for (const name of names) {
      if (done.includes(name)) continue;
      try {
        await migrations[name]!.up(trx);
      } catch (error) {
        throw dbError(path, `cannot migrate ${what} database ${path} (${name}): ${(error as Error).message}; nothing was changed`, error);
      }
      await trx.insertInto(MIGRATION_TABLE).values({ name, timestamp: new Date().toISOString() }).execute();
    }
  });
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
