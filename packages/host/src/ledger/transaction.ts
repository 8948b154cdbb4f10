import { sql, type Kysely } from 'kysely';

// Kept in a kysely-free module so `cordon reduce` can open SQLite without loading kysely.
export { enableWal } from '../util/sqlite-wal.js';

/** Thrown inside {@link writeTransaction} to roll back on purpose and hand `value` back to the caller. */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

/**
 * Runs `fn` in one write transaction on a single connection: `BEGIN IMMEDIATE` takes SQLite's
 * write lock up front (waiting up to the busy timeout), so read-then-write steps such as
 * "next seq = max(seq) + 1" cannot race another process. Commits when `fn` resolves, rolls back
 * when it throws; a thrown {@link Rollback} resolves to its value after rolling back (dry runs).
 */
export async function writeTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const value = await fn(conn);
      await sql`commit`.execute(conn);
      return value;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      if (error instanceof Rollback) return error.value as T;
      throw error;
    }
  });
}

/**
 * Runs `fn` in one read transaction so its several queries see one snapshot of the database
 * (WAL readers never block the writer).
 */
export async function readTransaction<DB, T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    try {
      return await fn(conn);
    } finally {
      await sql`rollback`.execute(conn).catch(() => undefined);
    }
  });
}
