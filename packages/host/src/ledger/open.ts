import { closeSync, existsSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { systemErrorWords } from '@cordon/plugin-api';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { ensurePrivateDir, ensurePrivateFile, tightenPrivateFile } from '../io/index.js';
import { fileKind } from '../io/safe-read.js';
import { asLedgerError, dbError, refused } from './errors.js';
import { checkLedgerRows } from './integrity.js';
import { inspectLayout } from './layout.js';
import { LEDGER_MIGRATIONS, LEDGER_SCHEMA_VERSION } from './migrations.js';
import { migrateReferenceLedger } from './reference.js';
import type { LedgerSchema } from './schema.js';
import { enableWal, writeTransaction } from './transaction.js';
import { lazyPackage } from '../util/lazy-package.js';
import { sqliteNativeBinding } from '../util/sqlite-binding.js';
import { sqliteDriverProblem } from '../util/sqlite-driver.js';
import { mark } from '../util/timeline.js';

/** The 16 bytes every SQLite 3 database file starts with (sqlite.org/fileformat.html §1.3). */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Options of {@link openLedgerDatabase}. */
export interface OpenDatabaseOptions {
  /** How long a statement waits for another process's write lock, in ms (default 10,000). */
  readonly busyTimeoutMs?: number;
  /**
   * SQLite's page cache for this connection, in KiB (default: better-sqlite3's 16 MiB). A
   * one-shot reader (`pcodx show` on the fast route) passes a small one: the row check and the
   * render each pass over the file once, so a large cache only fills memory (14 MiB more peak
   * RSS at 100,000 messages) without saving a read.
   */
  readonly cacheSizeKiB?: number;
  /**
   * Called with the raw better-sqlite3 connection once it is open and migrated, before any
   * ledger query: the place for per-connection setup such as temporary triggers or functions.
   */
  readonly onConnection?: (connection: BetterSqlite3.Database) => void;
  /**
   * False: open only a ledger that exists. A missing or empty file is refused with
   * `CORDON_LEDGER_REFUSED` before anything is created (commands that need an existing session).
   * Default true.
   */
  readonly create?: boolean;
}

/** An open ledger database: the kysely handle and the raw connection under it. */
export interface LedgerDatabase {
  readonly path: string;
  readonly db: Kysely<LedgerSchema>;
  readonly raw: BetterSqlite3.Database;
}

/**
 * Why the directories of `dir` could not be made, in words: the nearest ancestor that exists is
 * not a directory (`--db /etc/passwd/x.db`: mkdir(2) says EEXIST, which Node words as `file
 * already exists, mkdir '/etc/passwd'`), else what the failed call says (`systemErrorWords`).
 */
function directoryProblem(dir: string, error: unknown): string {
  const file = fileAbove(dir);
  return file !== undefined ? `${file} is not a directory` : systemErrorWords(error);
}

/**
 * The nearest existing ancestor of `dir` (or `dir` itself) when it is not a directory (a regular
 * file, a device): nothing can be created below it. Undefined when it is a directory or cannot
 * be examined.
 */
function fileAbove(dir: string): string | undefined {
  let ancestor = dir;
  while (!existsSync(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
  try {
    return statSync(ancestor).isDirectory() ? undefined : ancestor;
  } catch {
    return undefined;
  }
}

/**
 * Opens the ledger at `path` (absolute), creating its parent directories (0700) and the file
 * (0600, before SQLite opens it, so its -wal and -shm are 0600 too) when missing, and brings its
 * schema to {@link LEDGER_SCHEMA_VERSION}. An existing ledger the user owns is made owner-only.
 *
 * Connection settings: WAL journal, `synchronous=NORMAL` (a crash of the process loses nothing
 * committed; a power cut may lose the last transactions but never corrupts), foreign keys on,
 * `busy_timeout`.
 *
 * Nothing is written before every check has passed: a file that is not SQLite, is corrupt, is
 * not a ledger, has a newer schema version, tables that are not a ledger's, or a stored row that
 * breaks an invariant of the writer (`checkLedgerRows`: a damaged ledger, the file and the row
 * named) is refused with `CORDON_DB_ERROR` and left byte-for-byte unchanged, mode included. A
 * ledger the reference pcodx wrote (its schema version 1) is rebuilt into cordon's schema in one
 * transaction (`migrateReferenceLedger`) before its journal mode or file mode changes, so a
 * failed rebuild leaves it as it was. With `create: false` a missing or empty file is refused
 * with `CORDON_LEDGER_REFUSED` and nothing (no directory, no file) is created. A better-sqlite3
 * built for another Node.js ABI is reported with the `npm rebuild better-sqlite3` remedy.
 */
export async function openLedgerDatabase(path: string, options: OpenDatabaseOptions = {}): Promise<LedgerDatabase> {
  const create = options.create !== false;
  const size = checkHeader(path);
  if (size === undefined || size === 0) {
    if (!create) {
      // Under a file (`--db notes.txt/x.sqlite3`) init could not make one either: say why instead.
      const blocked = size === undefined ? fileAbove(dirname(path)) : undefined;
      if (blocked !== undefined) throw refused(`there is no ledger at ${path}, and there cannot be one: ${blocked} is not a directory; nothing was created`, { path });
      throw refused(`there is no ledger at ${path} yet (run \`cordon pcodx init\` first); nothing was created`, { path });
    }
  }
  if (size === undefined) {
    try {
      ensurePrivateDir(dirname(path));
    } catch (error) {
      throw dbError(path, `cannot create the directory of ledger database ${path}: ${directoryProblem(dirname(path), error)}`, error);
    }
    try {
      // Owner-only before SQLite creates it (its -wal and -shm take the database file's mode).
      ensurePrivateFile(path);
    } catch (error) {
      throw dbError(path, `cannot create ledger database ${path}: ${systemErrorWords(error)}`, error);
    }
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  const raw = await connect(path, busyTimeoutMs);
  mark('ledger connected');
  try {
    // Only a whole number of KiB reaches the pragma (it takes no bound parameter).
    if (options.cacheSizeKiB !== undefined) raw.pragma(`cache_size = -${Math.max(1, Math.trunc(options.cacheSizeKiB))}`);
    raw.pragma('foreign_keys = ON');
    const layout = inspectLayout(path, raw);
    if (layout.kind === 'empty' && !create) throw refused(`there is no ledger at ${path} yet (run \`cordon pcodx init\` first); nothing was created`, { path });
    if (layout.kind === 'cordon') checkLedgerRows(raw, path);
    mark('ledger rows checked');
    const db = new Kysely<LedgerSchema>({ dialect: new SqliteDialect({ database: raw }) });
    // The reference's file becomes cordon's in one transaction, before anything else changes it.
    if (layout.kind === 'reference') await migrateReferenceLedger(db, raw, path);
    // The first writes outside a migration, only after the checks above. A ledger made 0644 by
    // an older cordon becomes owner-only: it holds the whole conversation.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenPrivateFile(file);
    enableWal(raw, busyTimeoutMs);
    raw.pragma('synchronous = NORMAL');
    if (layout.kind !== 'reference' && (layout.kind === 'empty' || layout.version < LEDGER_SCHEMA_VERSION)) await migrate(db, raw, path);
    options.onConnection?.(raw);
    mark('ledger opened');
    return { path, db, raw };
  } catch (error) {
    raw.close();
    throw asLedgerError(path, error);
  }
}

/**
 * Refuses an existing, non-empty file that does not start with the SQLite header; reads only.
 * Returns the file's size, or undefined when there is no file.
 */
function checkHeader(path: string): number | undefined {
  if (!existsSync(path)) {
    // A link to nothing: SQLite would fail with `unable to open database file`.
    let link;
    try {
      link = lstatSync(path, { throwIfNoEntry: false });
    } catch {
      link = undefined; // ENOTDIR and the like: the directory's creation below names it
    }
    if (link?.isSymbolicLink()) {
      // A chain of links that comes back to itself (`loop -> loop`) is not one to nothing.
      if (statCode(path) === 'ELOOP') throw dbError(path, `ledger database ${path} is a symbolic link to ${readlinkSync(path)} that leads back to itself (a loop of links); it was left unchanged: point --db / PCODX_DB at the ledger file itself`);
      throw dbError(path, `ledger database ${path} is a symbolic link to ${readlinkSync(path)}, which does not exist; it was left unchanged: point --db / PCODX_DB at the ledger file itself`);
    }
    return undefined;
  }
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    throw dbError(path, `cannot read ledger database ${path}: ${systemErrorWords(error)}`, error);
  }
  // A FIFO, device or directory: SQLite would block, fail with an I/O error or read nothing.
  if (!stat.isFile()) throw dbError(path, `ledger database ${path} is ${fileKind(stat)}, not a file; it was left unchanged: point --db / PCODX_DB at a ledger file`);
  const size = stat.size;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number | undefined;
  let read: number;
  let sizeNow = size;
  try {
    fd = openSync(path, 'r');
    // Read even when the size is 0: a kernel's file (/proc, /sys) says 0 and has content or fails.
    read = readSync(fd, head, 0, head.length, 0);
    if (size === 0 && read > 0) sizeNow = fstatSync(fd).size;
  } catch (error) {
    throw dbError(path, `cannot read ledger database ${path}: ${systemErrorWords(error)}; it was left unchanged: point --db / PCODX_DB at a ledger file`, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  // Empty when measured: another process creating the ledger may have written it since, which
  // SQLite's locking sorts out, as for a file found empty. A kernel's file still says 0.
  if (size === 0 && (read === 0 || sizeNow > 0)) return 0;
  if (size === 0) throw dbError(path, `ledger database ${path} is a file the kernel makes up as it is read (its size says 0, yet it has content), not a ledger; it was left unchanged: point --db / PCODX_DB at a ledger file`);
  if (!head.equals(SQLITE_HEADER)) {
    throw dbError(path, `ledger database ${path} is not an SQLite database (its first bytes are not the SQLite header); it was left unchanged: move it away or point --db / PCODX_DB at another file`);
  }
  return size;
}

/** The error code `stat(2)` of `path` fails with (`ELOOP`, `ENOENT` …), or undefined when it succeeds. */
function statCode(path: string): string | undefined {
  try {
    statSync(path);
    return undefined;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
}

/**
 * better-sqlite3, `require`d on first use: a CommonJS package, so no `import()` (which a bundle
 * run from V8's code cache cannot do on Node 20: the fast `cordon pcodx` route).
 */
const betterSqlite3 = lazyPackage<typeof BetterSqlite3>('better-sqlite3');

/** Loads better-sqlite3 and opens the file; turns a native-module ABI mismatch into a remedy. */
async function connect(path: string, busyTimeoutMs: number): Promise<BetterSqlite3.Database> {
  try {
    const Database = betterSqlite3();
    // The addon found directly (see sqliteNativeBinding); an addon object is accepted as well as a path.
    const addon = sqliteNativeBinding();
    return new Database(path, { timeout: busyTimeoutMs, ...(addon ? { nativeBinding: addon as string } : {}) });
  } catch (error) {
    throw explainOpenFailure(path, error);
  }
}

/**
 * The error to show when better-sqlite3 cannot load or open `path`. A native module compiled for
 * another Node.js (`NODE_MODULE_VERSION x … requires y`, or `ERR_DLOPEN_FAILED`) gets the
 * `npm rebuild better-sqlite3` remedy (better-sqlite3 ABI errors).
 */
export function explainOpenFailure(path: string, error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const driver = sqliteDriverProblem(error);
  if (driver) return dbError(path, `cannot open ledger database ${path}: ${driver}`, error);
  const mapped = asLedgerError(path, error);
  if (mapped !== error) return mapped;
  return dbError(path, `cannot open ledger database ${path}: ${message}`, error);
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
