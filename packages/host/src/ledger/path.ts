import { isAbsolute, join, resolve } from 'node:path';
import { homedir } from '../util/paths.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { redactUrl } from '../output/url.js';
import { urlScheme } from '../util/url-scheme.js';
import { refuseFileTarget } from '../envelope/state/state-dir-target.js';

/** Inputs of {@link resolveLedgerPath}. */
export interface LedgerPathOptions {
  /** A `--db` flag value; relative paths resolve against `cwd`. */
  readonly db?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** Base for a relative `db` or `PCODX_DB` (default: the process cwd). */
  readonly cwd?: string;
}

/**
 * Where the ledger database lives (the Rust pcodx, SichangHe/partial_compact_codex), first match wins:
 * `db` (the `--db` flag), `$PCODX_DB`, `$XDG_DATA_HOME/pcodx/pcodx.sqlite3` (only when
 * XDG_DATA_HOME is absolute, as the XDG spec requires), `%LOCALAPPDATA%\pcodx\pcodx.sqlite3` on
 * Windows, else `~/.local/share/pcodx/pcodx.sqlite3`. Returns an absolute path; creates nothing.
 * @throws CordonError `CORDON_BAD_INPUT` when `db` is empty ({@link emptyPath}; an empty
 * `PCODX_DB` is unset, as every variable of cordon's is), or `db` or `PCODX_DB` is a URL (`mysql://x`, which read
 * as a path made a directory `mysql:`): the ledger is an SQLite file; or names a file inside an
 * envelope's `.cordon/` directory (the ledger and its -wal and -shm would make every envelope
 * command there refuse the directory: envelope/state/state-dir-target.ts).
 */
export function resolveLedgerPath(options: LedgerPathOptions = {}): string {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const cwd = options.cwd ?? process.cwd();
  if (options.db === '') throw emptyPath('--db', 'the ledger');
  if (options.db) return resolve(cwd, namedFile(options.db, '--db', cwd));
  if (env.PCODX_DB) return resolve(cwd, namedFile(env.PCODX_DB, 'PCODX_DB=', cwd));
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'pcodx', 'pcodx.sqlite3');
  if (platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'pcodx', 'pcodx.sqlite3');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.local', 'share', 'pcodx', 'pcodx.sqlite3');
}

/**
 * The refusal of a flag given an empty path (`--db ""`, `--usage-log ""`, as `--db "$UNSET"`
 * writes): it was taken for no flag, so the default file was written where the user named none.
 * A usage error (`CORDON_BAD_INPUT`, exit 2), as the host refuses `--repo ""`.
 */
export function emptyPath(flag: string, what: string): CordonError {
  return new CordonError(ERROR_CODES.BAD_INPUT, `${flag} "": an empty path names no file; give the path of ${what}, or leave ${flag} out for the default`, { details: { flag } });
}

/**
 * `db` when it is no URL and lands outside every envelope's state directory; else the refusal,
 * named as given (`--db mysql://x`, `PCODX_DB=…`).
 */
function namedFile(db: string, named: '--db' | 'PCODX_DB=', cwd: string): string {
  const scheme = urlScheme(db);
  if (scheme !== undefined) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `${named}${named === '--db' ? ' ' : ''}${redactUrl(db)}: unsupported scheme ${scheme}; the ledger is an SQLite file: give its path`, { details: { scheme } });
  }
  refuseFileTarget(named, db, cwd);
  return db;
}
