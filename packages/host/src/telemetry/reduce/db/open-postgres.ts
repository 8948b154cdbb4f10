import { connectionErrorWords } from '@cordon/plugin-api';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { CordonError, ERROR_CODES } from '../../../errors/index.js';
import { TELEMETRY_MIGRATIONS } from './migrations.js';
import type { TelemetryDb } from './open.js';
import type { TelemetrySchema } from './schema.js';
import { redactSecrets, redactUrl } from './target.js';

/**
 * Opens the telemetry store in the PostgreSQL database `url` names through kysely's
 * PostgreSQL dialect and a `pg` pool, and brings its schema to the latest of
 * {@link TELEMETRY_MIGRATIONS} (kysely's `Migrator` serialises concurrent migrators with a
 * transaction-level advisory lock, so many machines may start at once). Whatever the URL leaves
 * out (host, user, password, database, SSL) comes from the libpq variables (`PGHOST`,
 * `PGUSER`, `PGPASSWORD`, …), which `pg` reads. `path` of the result is the URL with its
 * password redacted; no message carries a credential.
 *
 * @throws CordonError `CORDON_DB_ERROR` (exit 2) when the server cannot be reached or refuses,
 * when the database has tables but no migration record, or was migrated by a newer cordon.
 */
export async function openPostgresDb(url: string): Promise<TelemetryDb> {
  const shown = redactUrl(url);
  let pg: typeof import('pg');
  try {
    pg = (await import('pg')).default as unknown as typeof import('pg');
  } catch (error) {
    throw dbError(shown, `cannot load the PostgreSQL driver (pg): ${(error as Error).message}`, error);
  }
  // Double precision and integers come back as numbers already; counts (bigint) are cast in queries.
  const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined);
  const db = new Kysely<TelemetrySchema>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
    const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema()`.execute(db)).rows.map((r) => r.table_name);
    if (tables.length > 0 && !tables.includes('kysely_migration')) {
      throw dbError(shown, `${shown} holds tables but is not cordon's telemetry database (no kysely_migration table); it was left unchanged`);
    }
    if (tables.includes('kysely_migration')) {
      const done = (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((r) => r.name);
      const unknown = done.filter((name) => !(name in TELEMETRY_MIGRATIONS));
      if (unknown.length) throw dbError(shown, `telemetry database ${shown} has schema migrations this cordon does not know (${unknown.join(', ')}): it was written by a newer cordon and was left unchanged`);
    }
    const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...TELEMETRY_MIGRATIONS }) } });
    const { error } = await migrator.migrateToLatest();
    if (error) throw dbError(shown, `cannot migrate telemetry database ${shown}: ${redactSecrets((error as Error).message ?? String(error), url)}`);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    if (error instanceof CordonError) throw error;
    // The driver's message may echo the connection string; the cause is dropped for the same reason.
    // A failed connection in words (`connection refused (nothing listens there)`), not getaddrinfo's or connect's text.
    const why = connectionErrorWords(error) ?? redactSecrets((error as Error).message, url);
    throw dbError(shown, `cannot open telemetry database ${shown}: ${why}`);
  }
  return { path: shown, db, close: () => db.destroy() };
}

function dbError(shown: string, message: string, cause?: unknown): CordonError {
  return new CordonError(ERROR_CODES.DB_ERROR, message, { cause, details: { path: shown } });
}
