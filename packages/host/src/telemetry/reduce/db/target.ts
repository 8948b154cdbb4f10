import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { CordonError, ERROR_CODES } from '../../../errors/index.js';
import { directoryProblem } from '../../../io/directory.js';
import { refuseFileTarget } from '../../../envelope/state/state-dir-target.js';
import { redactUrl } from '../../../output/url.js';
import { urlScheme } from '../../../util/url-scheme.js';
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
 * What a command does with the store: `read` (`analyze`, `export`) needs one that exists;
 * `write` (`reduce`, whose job is to store sessions) may create the file.
 */
export type StoreUse = 'read' | 'write';

/**
 * {@link resolveDbTarget}, checked for `use` before anything opens it, so that a path the user
 * named (`--db`, else `CORDON_DB`) never makes a directory, and a reader never makes a file: for
 * `write` the SQLite file's directory must exist, for `read` the file itself. Otherwise throws
 * `CORDON_BAD_INPUT` (exit 2) naming the flag or the variable and the path
 * (`--db /x/t.sqlite: no such database; nothing was created …`), `details` `{flag, path}`; a
 * directory is refused for both uses (`is a directory, not an SQLite file`). The
 * default store in the data directory is created as before (the data directory with it), and a
 * PostgreSQL URL is not checked. A URL of any other scheme (`mysql://x`) is refused as such
 * (`--db mysql://x: unsupported scheme mysql; give a SQLite file path or a postgres:// URL`,
 * `details` `{flag, scheme}`; its credentials are not shown) for both uses. A file inside an
 * envelope's `.cordon/` directory is refused for both uses (envelope/state/state-dir-target.ts).
 */
export function storeTarget(flag: string | undefined, fallback: string, env: NodeJS.ProcessEnv, use: StoreUse): string {
  const target = resolveDbTarget(flag, fallback, env);
  if (target === fallback || isPostgresUrl(target)) return target;
  const named = flag !== undefined ? '--db' : 'CORDON_DB';
  const scheme = urlScheme(target);
  if (scheme !== undefined) {
    // Read as a path, `mysql://x` named a directory `mysql:` below the working directory.
    const shown = redactUrl(target);
    throw new CordonError(ERROR_CODES.BAD_INPUT, `${named}${flag !== undefined ? ' ' : '='}${shown}: unsupported scheme ${scheme}; give a SQLite file path or a postgres:// URL`, { details: { flag: named, scheme } });
  }
  const refuse = (why: string) => new CordonError(ERROR_CODES.BAD_INPUT, `${named}${flag !== undefined ? ' ' : '='}${target}: ${why}; nothing was created`, { details: { flag: named, path: target } });
  // SQLite adds -wal and -shm beside even a file it only reads: none of them belongs in .cordon/.
  refuseFileTarget(flag !== undefined ? named : `${named}=`, target);
  const kind = pathKind(target);
  if (kind === 'directory') throw refuse('is a directory, not an SQLite file');
  if (use === 'read') {
    if (kind === 'missing') throw refuse(`no such database (\`cordon reduce --db ${target}\` makes one)`);
    return target;
  }
  const dir = dirname(resolve(target));
  const why = directoryProblem(dir);
  if (why !== undefined) throw refuse(`its directory ${dir}: ${why}`);
  return target;
}

/**
 * What is at `path`: nothing (a missing path, or one below a file), a directory, or anything else
 * (a file, or a path whose stat fails otherwise, e.g. EACCES, which the opener then reports).
 */
function pathKind(path: string): 'missing' | 'directory' | 'other' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'other';
  }
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
