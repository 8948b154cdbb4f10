import { existsSync, lstatSync, statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { appendLine, ensurePrivateDir } from '../io/index.js';
import { isCorrelationId } from './integrity.js';
import { refuseFileTarget } from '../envelope/state/state-dir-target.js';
import { emptyPath } from './path.js';

/** The usage-line field that names the session (the Rust pcodx, SichangHe/partial_compact_codex). */
const CORRELATION_FIELD = 'pcodx_session_correlation_id';

/** Inputs of {@link resolveUsageLogPath}. */
export interface UsageLogPathOptions {
  /** A `--usage-log` flag value. */
  readonly usageLog?: string;
  /** The ledger database path (absolute). */
  readonly dbPath: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Base for relative paths (default: the process cwd). */
  readonly cwd?: string;
}

/**
 * Where the pcodx usage log lives (the Rust pcodx, SichangHe/partial_compact_codex): `--usage-log`, else
 * `$PCODX_USAGE_LOG`, else the database path with its extension replaced by `.usage.jsonl`.
 * @throws CordonError `CORDON_BAD_INPUT` when the flag is empty (`emptyPath`), or the flag or the variable names a file inside an
 * envelope's `.cordon/` directory (envelope/state/state-dir-target.ts); the default lies beside
 * the database, which `resolveLedgerPath` has refused there already.
 */
export function resolveUsageLogPath(options: UsageLogPathOptions): string {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  if (options.usageLog === '') throw emptyPath('--usage-log', 'the usage log');
  if (options.usageLog) {
    refuseFileTarget('--usage-log', options.usageLog, cwd);
    return resolve(cwd, options.usageLog);
  }
  if (env.PCODX_USAGE_LOG) {
    refuseFileTarget('PCODX_USAGE_LOG=', env.PCODX_USAGE_LOG, cwd);
    return resolve(cwd, env.PCODX_USAGE_LOG);
  }
  const ext = extname(options.dbPath);
  return `${ext ? options.dbPath.slice(0, -ext.length) : options.dbPath}.usage.jsonl`;
}

const refuse = (path: string, why: string) => new CordonError(ERROR_CODES.USAGE_LOG_REFUSED, `usage log ${path} ${why}; nothing was written`, { exit: 1, details: { path } });

/**
 * Appends one usage record as a compact JSON line (the Rust pcodx, SichangHe/partial_compact_codex), through the io
 * layer's `appendLine`: one `O_APPEND` write (concurrent writers never interleave, so no lock file
 * is needed), a torn last line left by a crashed writer is ended with a newline first so the new
 * line stays whole, the file is created 0600 and never opened through a symbolic link.
 *
 * Refused with `CORDON_USAGE_LOG_REFUSED` before anything is written: a record whose
 * `pcodx_session_correlation_id` is not a correlation id cordon made, an existing file with any
 * group or other permission bit, a symbolic link, something other than a regular file, or the
 * ledger database itself (same path, or a hard link to it), a path under a file. Missing parent
 * directories are created owner-only. I/O errors propagate.
 */
export function appendUsageRecord(path: string, dbPath: string, record: Readonly<Record<string, unknown>>): void {
  // The one session identifier a line may carry is a correlation id cordon made (random, no
  // names): anything else in that field could be a session name, a path or someone's address.
  if (CORRELATION_FIELD in record && !isCorrelationId(record[CORRELATION_FIELD])) {
    throw refuse(path, `got a record whose ${CORRELATION_FIELD} is not a correlation id cordon made (pcses- and 32 lowercase hex digits)`);
  }
  if (checkUsageLogFile(path, dbPath) === 'missing') ensurePrivateDir(dirname(path));
  appendLine(path, `${JSON.stringify(record)}\n`);
}

/**
 * The checks of {@link appendUsageRecord} without the write, so a caller can refuse before doing
 * work it could not log. Writes nothing (missing parent directories are made by the append).
 * Returns whether the log exists yet.
 */
export function checkUsageLogFile(path: string, dbPath: string): 'exists' | 'missing' {
  if (resolve(path) === resolve(dbPath)) throw refuse(path, 'is the ledger database');
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  if (stat) {
    if (stat.isSymbolicLink()) throw refuse(path, 'is a symbolic link');
    if (!stat.isFile()) throw refuse(path, 'is not a regular file');
    if ((stat.mode & 0o077) !== 0) throw refuse(path, `is open to group or others (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}); run chmod 600 on it`);
    try {
      const db = statSync(dbPath);
      if (db.dev === stat.dev && db.ino === stat.ino) throw refuse(path, 'is a hard link to the ledger database');
    } catch (error) {
      if (error instanceof CordonError) throw error;
    }
    return 'exists';
  }
  // The directories the append would make: the nearest existing ancestor must be a directory.
  let ancestor = dirname(path);
  while (!existsSync(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
  if (!statSync(ancestor).isDirectory()) throw refuse(path, `cannot be created: ${ancestor} is not a directory`);
  return 'missing';
}
