import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Sqlite, { type Database } from 'better-sqlite3';
import { CordonError, ERROR_CODES } from '../../../errors/index.js';
import { ensurePrivateDir, ensurePrivateFile, tightenPrivateFile } from '../../../io/index.js';
import { isMissingFile, readRegularFileHead, UnsafeReadError } from '../../../io/safe-read.js';
import { enableWal } from '../../../util/sqlite-wal.js';
import { sqliteNativeBinding } from '../../../util/sqlite-binding.js';
import { sqliteDriverProblem } from '../../../util/sqlite-driver.js';

/** The table kysely's `Migrator` keeps its record in; the same shape, so either can read it. */
export const MIGRATION_TABLE = 'kysely_migration';

/** The 16 bytes every SQLite 3 file starts with (sqlite.org/fileformat.html §1.3). */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** One of cordon's SQLite files, open and checked by {@link openSqliteFile}. */
export interface SqliteFile {
  /** The better-sqlite3 connection (WAL, foreign keys on, 10 s busy timeout). */
  readonly raw: Database;
  /** Migration names not yet recorded in `kysely_migration`, in name order (all of them for a new file). */
  readonly pending: string[];
}

/**
 * Opens one of cordon's SQLite databases at `path` with better-sqlite3 alone (no kysely, which
 * costs `cordon reduce` more to load than a small session costs to store), creating it 0600 and
 * its directory 0700 when missing and making an existing one the user owns owner-only, and says
 * which of `migrations` (names) it still lacks. Settings: WAL, foreign keys on, 10 s busy
 * timeout, so several processes may write at once. `what` names the database in messages
 * (`telemetry`, `control`). Applying the pending migrations is the caller's (`openMigratedDb`).
 *
 * @throws CordonError `CORDON_DB_ERROR` (exit 2), leaving the file unchanged, when it is not
 * SQLite, holds other tables but no migration record, or was migrated by a newer cordon (a
 * migration name this build does not know); also when better-sqlite3 cannot load or the file
 * cannot be created or opened.
 */
export async function openSqliteFile(path: string, migrations: readonly string[], what: string): Promise<SqliteFile> {
  refuseNonSqlite(path);
  try {
    ensurePrivateDir(dirname(path));
    // Owner-only before SQLite creates it (its -wal and -shm take the database file's mode).
    if (!existsSync(path)) ensurePrivateFile(path);
  } catch (error) {
    throw dbError(path, `cannot create ${what} database ${path}: ${(error as Error).message}`, error);
  }
  let raw: Database;
  try {
    // The native addon loads here (a failure is this error, not an import error).
    const addon = sqliteNativeBinding();
    // An addon object is accepted as well as a path (lib/database.js); the type declarations say string.
    raw = new Sqlite(path, { timeout: 10_000, ...(addon ? { nativeBinding: addon as string } : {}) });
  } catch (error) {
    throw dbError(path, `cannot open ${what} database ${path}: ${sqliteDriverProblem(error) ?? (error as Error).message}`, error);
  }
  try {
    raw.pragma('foreign_keys = ON');
    // A committed migration holds its tables and its kysely_migration rows together, so this
    // read sees a finished schema or none, even while another process migrates.
    const done = recordedMigrations(raw, path, what, migrations);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenPrivateFile(file);
    enableWal(raw, 10_000);
    return { raw, pending: [...migrations].sort().filter((name) => !done.includes(name)) };
  } catch (error) {
    raw.close();
    throw error instanceof CordonError ? error : dbError(path, `cannot open ${what} database ${path}: ${(error as Error).message}`, error);
  }
}

/**
 * The migrations `raw` records, after refusing a database that holds other tables but no
 * migration record, or records a migration this build does not know.
 * @throws CordonError `CORDON_DB_ERROR`.
 */
function recordedMigrations(raw: Database, path: string, what: string, migrations: readonly string[]): string[] {
  const tables = raw.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[];
  if (tables.length > 0 && !tables.includes(MIGRATION_TABLE)) {
    throw dbError(path, `${path} is an SQLite database but not cordon's ${what} database (no kysely_migration table); it was left unchanged`);
  }
  const done = tables.includes(MIGRATION_TABLE) ? (raw.prepare(`select name from ${MIGRATION_TABLE}`).pluck().all() as string[]) : [];
  refuseUnknownMigrations(path, what, migrations, done);
  return done;
}

/** Files up to this size get SQLite's `quick_check` from {@link sqliteFileProblem}; a larger one would keep doctor waiting. */
export const QUICK_CHECK_MAX_BYTES = 64 * 2 ** 20;

/**
 * What {@link openSqliteFile} would refuse about the existing database at `path`, found
 * read-only (doctor): the same `CORDON_DB_ERROR` message, or SQLite's own complaint (`file is not
 * a database`, `database disk image is malformed`) as "cannot open"; then, for a file of at most
 * {@link QUICK_CHECK_MAX_BYTES}, the first line of `PRAGMA quick_check` that is not `ok`.
 * `undefined` when nothing is wrong, and when the file does not exist (it is never created; WAL
 * files are not written by a read-only connection). `checked` says whether `quick_check` ran.
 */
export function sqliteFileProblem(path: string, migrations: readonly string[], what: string): { problem?: string; checked: boolean } {
  if (!existsSync(path)) return { checked: false };
  let raw: Database | undefined;
  try {
    refuseNonSqlite(path);
    const addon = sqliteNativeBinding();
    raw = new Sqlite(path, { readonly: true, fileMustExist: true, timeout: 2_000, ...(addon ? { nativeBinding: addon as string } : {}) });
    recordedMigrations(raw, path, what, migrations);
    if (statSync(path).size > QUICK_CHECK_MAX_BYTES) return { checked: false };
    const bad = (raw.pragma('quick_check(1)', { simple: false }) as Array<Record<string, unknown>>).map((r) => String(Object.values(r)[0])).find((line) => line !== 'ok');
    return bad ? { problem: `${what} database ${path} fails SQLite's integrity check: ${bad}`, checked: true } : { checked: true };
  } catch (error) {
    return { problem: error instanceof CordonError ? error.message : `cannot open ${what} database ${path}: ${sqliteDriverProblem(error) ?? (error as Error).message}`, checked: false };
  } finally {
    raw?.close();
  }
}

/**
 * Refuses a database that records migrations this build does not know (`done` holds a name
 * outside `migrations`): a newer cordon wrote it.
 * @throws CordonError `CORDON_DB_ERROR`.
 */
export function refuseUnknownMigrations(path: string, what: string, migrations: readonly string[], done: readonly string[]): void {
  const unknown = done.filter((name) => !migrations.includes(name));
  if (unknown.length) {
    throw dbError(path, `${what} database ${path} has schema migrations this cordon does not know (${unknown.join(', ')}): it was written by a newer cordon and was left unchanged`);
  }
}

function refuseNonSqlite(path: string): void {
  let head: Buffer;
  try {
    // Without blocking, and a regular file only: a FIFO in its place would hang the command, a
    // directory fail with a bare EISDIR.
    head = readRegularFileHead(path, { maxBytes: SQLITE_HEADER.length, links: 'always' });
  } catch (error) {
    if (isMissingFile(error)) return;
    const why = error instanceof UnsafeReadError ? error.detail : (error as Error).message;
    throw dbError(path, `${path} cannot be opened as an SQLite database: ${why}; it was left unchanged: move it away or pass another --db`, error);
  }
  if (head.length === 0) return;
  if (!head.equals(SQLITE_HEADER)) throw dbError(path, `${path} is not an SQLite database; it was left unchanged: move it away or pass another --db`);
}

/** A `CORDON_DB_ERROR` about the database at `path` (exit 2). */
export function dbError(path: string, message: string, cause?: unknown): CordonError {
  return new CordonError(ERROR_CODES.DB_ERROR, message, { cause, details: { path } });
}
