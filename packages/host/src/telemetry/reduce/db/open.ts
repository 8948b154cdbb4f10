import { Kysely, SqliteDialect, type Migration } from 'kysely';
import { CordonError } from '../../../errors/index.js';
import { writeTransaction } from '../../../ledger/transaction.js';
import { dbError, MIGRATION_TABLE, openSqliteFile, refuseUnknownMigrations } from './sqlite-file.js';
import { TELEMETRY_MIGRATIONS } from './migrations.js';
import type { TelemetrySchema } from './schema.js';

export { TELEMETRY_DB_FILE } from './names.js';

/** An open telemetry database. */
export interface TelemetryDb {
  readonly path: string;
  readonly db: Kysely<TelemetrySchema>;
  close(): Promise<void>;
}

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
  const { raw, pending } = await openSqliteFile(path, Object.keys(migrations), what);
  const db = new Kysely<S>({ dialect: new SqliteDialect({ database: raw }) });
  try {
    // Nothing pending: every migration was recorded by a committed transaction, no lock needed.
    if (pending.length) await migrate(db as Kysely<any>, path, what, migrations);
  } catch (error) {
    await db.destroy();
    throw error instanceof CordonError ? error : dbError(path, `cannot open ${what} database ${path}: ${(error as Error).message}`, error);
  }
  return { path, db, close: () => db.destroy() };
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
    refuseUnknownMigrations(path, what, names, done);
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
