import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { ensurePrivateDir, ensurePrivateFile, tightenPrivateFile } from '../io/index.js';
import { asLedgerError, dbError } from './errors.js';
import { LEDGER_MIGRATIONS, LEDGER_SCHEMA_VERSION } from './migrations.js';
import type { LedgerSchema } from './schema.js';
import { enableWal, writeTransaction } from './transaction.js';

/** The 16 bytes every SQLite 3 database file starts with (sqlite.org/fileformat.html §1.3). */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Options of {@link openLedgerDatabase}. */
export interface OpenDatabaseOptions {
  /** How long a statement waits for another process's write lock, in ms (default 10,000). */
  readonly busyTimeoutMs?: number;
  /**
   * Called with the raw better-sqlite3 connection once it is open and migrated, before any
   * ledger query: the place for per-connection setup such as temporary triggers or functions.
   */
  readonly onConnection?: (connection: BetterSqlite3.Database) => void;
}

/** An open ledger database: the kysely handle and the raw connection under it. */
export interface LedgerDatabase {
  readonly path: string;
  readonly db: Kysely<LedgerSchema>;
  readonly raw: BetterSqlite3.Database;
}

/**
 * Opens the ledger at `path` (absolute), creating its parent directories (0700) and the file
 * (0600, before SQLite opens it, so its -wal and -shm are 0600 too) when missing, and brings its
 * schema to {@link LEDGER_SCHEMA_VERSION}. An existing ledger the user owns is made owner-only.
 *
 * Connection settings: WAL journal, `synchronous=NORMAL` (a crash of the process loses nothing
 * committed; a power cut may lose the last transactions but never corrupts), foreign keys on,
 * `busy_timeout`. Every check runs before the first write, so a file that is not SQLite, is
 * corrupt, is not a ledger or has a newer schema version is refused with `CORDON_DB_ERROR` and
 * left byte-for-byte unchanged. A better-sqlite3 built for another Node.js ABI is reported with
 * the `npm rebuild better-sqlite3` remedy.
 */
export async function openLedgerDatabase(path: string, options: OpenDatabaseOptions = {}): Promise<LedgerDatabase> {
  checkHeader(path);
  try {
    ensurePrivateDir(dirname(path));
  } catch (error) {
    throw dbError(path, `cannot create the directory of ledger database ${path}: ${(error as Error).message}`, error);
  }
  try {
    // Owner-only before SQLite creates it (its -wal and -shm take the database file's mode).
    if (!existsSync(path)) ensurePrivateFile(path);
  } catch (error) {
    throw dbError(path, `cannot create ledger database ${path}: ${(error as Error).message}`, error);
  }
  const raw = await connect(path, options.busyTimeoutMs ?? 10_000);
  try {
    raw.pragma('foreign_keys = ON');
    const found = inspectVersion(path, raw);
    if (found > LEDGER_SCHEMA_VERSION) {
      throw dbError(path, `ledger database ${path} has schema version ${found}, newer than this cordon understands (${LEDGER_SCHEMA_VERSION}); it was left unchanged: upgrade cordon or use another --db`);
    }
    // The first write: only after the checks above. A ledger made 0644 by an older cordon
    // becomes owner-only: it holds the whole conversation.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenPrivateFile(file);
    enableWal(raw, options.busyTimeoutMs ?? 10_000);
    raw.pragma('synchronous = NORMAL');
    const db = new Kysely<LedgerSchema>({ dialect: new SqliteDialect({ database: raw }) });
    if (found < LEDGER_SCHEMA_VERSION) await migrate(db, raw, path);
    options.onConnection?.(raw);
    return { path, db, raw };
  } catch (error) {
    raw.close();
    throw asLedgerError(path, error);
  }
}

/** Refuses an existing, non-empty file that does not start with the SQLite header; reads only. */
function checkHeader(path: string): void {
  if (!existsSync(path)) return;
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw dbError(path, `cannot read ledger database ${path}: ${(error as Error).message}`, error);
  }
  if (size === 0) return;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    readSync(fd, head, 0, head.length, 0);
  } catch (error) {
    throw dbError(path, `cannot read ledger database ${path}: ${(error as Error).message}`, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (!head.equals(SQLITE_HEADER)) {
    throw dbError(path, `ledger database ${path} is not an SQLite database (its first bytes are not the SQLite header); it was left unchanged: move it away or point --db / PCODX_DB at another file`);
  }
}

/** Loads better-sqlite3 and opens the file; turns a native-module ABI mismatch into a remedy. */
async function connect(path: string, busyTimeoutMs: number): Promise<BetterSqlite3.Database> {
  try {
    const { default: Database } = await import('better-sqlite3');
    return new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw explainOpenFailure(path, error);
  }
}

/**
 * The error to show when better-sqlite3 cannot load or open `path`. A native module compiled for
 * another Node.js (`NODE_MODULE_VERSION x … requires y`, or `ERR_DLOPEN_FAILED`) gets the
 * `npm rebuild better-sqlite3` remedy (research/aesthetics.md §6.6).
 */
export function explainOpenFailure(path: string, error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (/NODE_MODULE_VERSION|was compiled against a different Node\.js version/.test(message) || code === 'ERR_DLOPEN_FAILED') {
    return dbError(path, `better-sqlite3 cannot load its native module for Node.js ${process.version} (${message.split('\n')[0]}); run \`npm rebuild better-sqlite3\` in the cordon installation`, error);
  }
  const mapped = asLedgerError(path, error);
  if (mapped !== error) return mapped;
  return dbError(path, `cannot open ledger database ${path}: ${message}`, error);
}

/**
 * The schema version recorded in the file: 0 for an empty database. Refuses a database that has
 * tables but no `schema_meta` (not a ledger) or an unreadable version. Reads only.
 */
function inspectVersion(path: string, raw: BetterSqlite3.Database): number {
  const tables = raw.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[];
  if (tables.length === 0) return 0;
  if (!tables.includes('schema_meta')) {
    throw dbError(path, `${path} is an SQLite database but not a pcodx ledger (it has no schema_meta table); it was left unchanged: point --db / PCODX_DB at another file`);
  }
  const value = raw.prepare(`select value from schema_meta where key = 'schema_version'`).pluck().get() as string | undefined;
  const version = Number(value);
  if (value === undefined || !Number.isInteger(version) || version < 1) {
    throw dbError(path, `ledger database ${path} has no valid schema_version (found ${JSON.stringify(value ?? null)}); it was left unchanged`);
  }
  return version;
}

/**
 * Applies the pending migrations, each in its own write transaction that re-reads the version
 * first, so processes opening a fresh file at the same time migrate it exactly once.
 */
async function migrate(db: Kysely<LedgerSchema>, raw: BetterSqlite3.Database, path: string): Promise<void> {
  for (const step of LEDGER_MIGRATIONS) {
    await writeTransaction(db, async (trx) => {
      const current = currentVersion(raw);
      if (current > LEDGER_SCHEMA_VERSION) {
        throw dbError(path, `ledger database ${path} has schema version ${current}, newer than this cordon understands (${LEDGER_SCHEMA_VERSION}); it was left unchanged: upgrade cordon or use another --db`);
      }
      if (current >= step.version) return;
      await step.up(trx);
      await sql`insert into schema_meta (key, value) values ('schema_version', ${String(step.version)})
        on conflict (key) do update set value = excluded.value`.execute(trx);
    });
  }
}

function currentVersion(raw: BetterSqlite3.Database): number {
  const has = raw.prepare(`select 1 from sqlite_master where type = 'table' and name = 'schema_meta'`).get();
  if (!has) return 0;
  return Number(raw.prepare(`select value from schema_meta where key = 'schema_version'`).pluck().get() ?? 0);
}
