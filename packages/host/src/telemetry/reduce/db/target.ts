import { hostname } from 'node:os';
import type { TelemetryDb } from './open.js';

/** True when `target` names a PostgreSQL database (`postgres://` or `postgresql://` URL). */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/**
 * `url` with its password replaced by `***` (and any `password=` query parameter), for messages
 * and reports: credentials are never printed. A string that does not parse as a URL is cut to
 * its scheme.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const key of [...u.searchParams.keys()]) if (/^(password|sslpassword|sslkey)$/i.test(key)) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return `${url.split(':')[0]}://…`;
  }
}

/** Every occurrence of `url`'s password in `text` replaced by `***` (driver errors may echo it). */
export function redactSecrets(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password.length >= 3) out = out.split(password).join('***');
  } catch {
    // Not a URL: nothing more to hide.
  }
  return out;
}

/**
 * The machine label rows are stored under: `CORDON_MACHINE` when set and not blank, else the
 * host name (issue 20: many machines write one database).
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
