import { CordonError, ERROR_CODES } from '../errors/index.js';

/** A request the ledger refuses under its rules (the Rust pcodx, SichangHe/partial_compact_codex); nothing was written. */
export function refused(message: string, details: Record<string, unknown> = {}): CordonError {
  return new CordonError(ERROR_CODES.LEDGER_REFUSED, message, { exit: 1, details });
}

/** The words for a session name the ledger has no session of, with the command that lists those it has. */
export function unknownSession(id: string): string {
  return `unknown session \`${id}\` (\`cordon pcodx sessions\` lists the sessions of this ledger)`;
}

/** The database cannot be used (opened, read or written); `path` names the file. */
export function dbError(path: string, message: string, cause?: unknown): CordonError {
  return new CordonError(ERROR_CODES.DB_ERROR, message, { exit: 1, cause, details: { path } });
}

/** True for errors better-sqlite3 raises (`SqliteError`, whose `code` starts with `SQLITE_`). */
export function isSqliteError(error: unknown): error is Error & { code: string } {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

/**
 * Maps anything raised while using the database at `path` to a cordon error: `CordonError`s pass
 * through; SQLite errors become `CORDON_DB_ERROR` with a sentence saying what to do.
 */
export function asLedgerError(path: string, error: unknown): unknown {
  if (error instanceof CordonError) return error;
  if (isSqliteError(error)) {
    if (error.code === 'SQLITE_CORRUPT' || error.code === 'SQLITE_NOTADB') {
      return dbError(path, `ledger database ${path} is corrupt (${error.message}); it was left as it is: move it away or point --db / PCODX_DB at another file`, error);
    }
    if (error.code.startsWith('SQLITE_BUSY')) {
      return dbError(path, `ledger database ${path} stayed locked by another process past the busy timeout (${error.message}); try again`, error);
    }
    return dbError(path, `ledger database ${path}: ${error.message} (${error.code})`, error);
  }
  return error;
}
