import { dirname } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { writeFileAtomic } from '../io/index.js';
import { rememberReport } from '../envelope/evidence/own-reports.js';
import { displayName } from './terminal.js';

/** Why a report could not be written, in words, by errno code. */
const REASONS: Readonly<Record<string, (dir: string) => string>> = {
  ENOENT: (dir) => `the directory ${displayName(dir)} does not exist`,
  ENOTDIR: (dir) => `${displayName(dir)} is not a directory`,
  EACCES: (dir) => `the directory ${displayName(dir)} is not writable`,
  EPERM: (dir) => `the directory ${displayName(dir)} is not writable`,
  EROFS: () => 'the file system is read-only',
  EISDIR: () => 'it is a directory',
  ENOSPC: () => 'the disk is full',
  EDQUOT: () => 'the disk quota is exhausted',
  ELOOP: () => 'too many levels of symbolic links',
};

/** Options of {@link writeReport}. */
export interface ReportFileOptions {
  /** The flag that named the file, for messages (default `--out`). */
  readonly flag?: string;
  /** Where `-` writes (default `process.stdout`). */
  readonly stdout?: { write(text: string): unknown };
}

/**
 * The one way cordon writes a report the user asked for (`check --out`, `analyze --out`):
 *
 * - `-` is standard output (POSIX utility convention, XBD 12.2 guideline 13), never a file named `-`;
 * - otherwise the file is replaced atomically (io/atomic-write.ts). A new file gets mode 0666
 *   minus the umask, as any program's output file would (reports hold commands that may carry
 *   secrets: under `umask 077` it is 0600); an existing file keeps its mode;
 * - a report written inside a git work tree is remembered as cordon's own
 *   (envelope/evidence/own-reports.ts), so the next `check` does not audit it as the agent's change.
 *
 * @returns the path written (a link's target), or undefined for standard output.
 * @throws CordonError `CORDON_BAD_INPUT` (exit 2) naming the path the user gave and why (a
 *   missing or unwritable directory, a directory in the way), never cordon's temp file.
 */
export async function writeReport(out: string, text: string, options: ReportFileOptions = {}): Promise<string | undefined> {
  if (out === '-') {
    (options.stdout ?? process.stdout).write(text);
    return undefined;
  }
  const bytes = Buffer.from(text, 'utf8');
  let target: string;
  try {
    target = writeFileAtomic(out, bytes, { createMode: 0o666 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const reason = REASONS[code]?.(dirname(out) || '.') ?? `${code || 'error'}`;
    throw new CordonError(ERROR_CODES.BAD_INPUT, `${options.flag ?? '--out'} ${displayName(out)}: cannot write the report: ${reason}`, { details: { path: out, errno: code || null } });
  }
  await rememberReport(target, bytes);
  return target;
}
