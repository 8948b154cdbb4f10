import { hostname } from 'node:os';
import type { TelemetryDb } from './open.js';

/** True when `target` names a PostgreSQL database (`postgres://` or `postgresql://` URL). */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

export { redactSecrets, redactUrl } from '../../../output/url.js';

/**
 * The machine label rows are stored under: `CORDON_MACHINE` when set and not blank, else the
 * host name (many machines write one database).
 */
export function machineName(env: NodeJS.ProcessEnv = process.env): string {
  const label = env.CORDON_MACHINE?.trim();
  return label ? label : hostname();
}

/**
 * The store `cordon reduce`/`analyze` use: `flag` (`--db`), else `CORDON_DB`, else `fallback`
 * (the SQLite file in the data directory). A blank `CORDON_DB` counts as unset.
 */
export function resolveDbTarget(flag: string | undefined, fallback: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined) return flag;
  const fromEnv = env.CORDON_DB?.trim();
  return fromEnv ? fromEnv : fallback;
}

/**
 * Opens the telemetry store `target` names: a PostgreSQL URL through kysely's PostgreSQL
 * dialect and `pg` (see open-postgres.ts), anything else as an SQLite file path
 * ({@link openTelemetryDb}). Both run the same migrations.
 * @throws CordonError `CORDON_DB_ERROR` when the store cannot be opened or migrated.
 */
export async function openTelemetryStore(target: string): Promise<TelemetryDb> {
  if (isPostgresUrl(target)) {
    const { openPostgresDb } = await import('./open-postgres.js');
    return openPostgresDb(target);
  }
  // Loaded here, not at the top: kysely is some 260 modules, and `cordon reduce` reads this
  // file's helpers without needing it.
  const { openTelemetryDb } = await import('./open.js');
  return openTelemetryDb(target);
}
