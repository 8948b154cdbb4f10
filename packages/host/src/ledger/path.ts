import { isAbsolute, join, resolve } from 'node:path';
import { homedir } from '../util/paths.js';

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
 */
export function resolveLedgerPath(options: LedgerPathOptions = {}): string {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const cwd = options.cwd ?? process.cwd();
  if (options.db) return resolve(cwd, options.db);
  if (env.PCODX_DB) return resolve(cwd, env.PCODX_DB);
  if (env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)) return join(env.XDG_DATA_HOME, 'pcodx', 'pcodx.sqlite3');
  if (platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'pcodx', 'pcodx.sqlite3');
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, '.local', 'share', 'pcodx', 'pcodx.sqlite3');
}
