import { closeSync, constants, lstatSync, openSync, readlinkSync, statSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { systemErrorWords } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { directoryProblem } from '../io/directory.js';
import { writeFileAtomic } from '../io/index.js';
import { sleepSync } from '../util/sleep-sync.js';
import { rememberReport } from '../envelope/evidence/own-reports.js';
import { refuseFileTarget } from '../envelope/state/state-dir-target.js';
import { displayName } from './terminal.js';

/**
 * Why a report could not be written (`error`, as Node throws it), with its code (`no space left
 * on the device (ENOSPC)`). A code that blames the directory names it (`dir`): missing, not a
 * directory, not writable; every other code is in the plugin API's words (`systemErrorWords`),
 * else the bare code.
 */
function reasonFor(error: unknown, dir: string): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === '') return 'error';
  const words = directoryReason(code, dir) ?? systemErrorWords(error);
  return words === code ? code : `${words} (${code})`;
}

/** What `code` says is wrong with the directory `dir` a report goes to, or undefined for a code that does not blame it. */
function directoryReason(code: string, dir: string): string | undefined {
  switch (code) {
    case 'ENOENT':
      // Also from a directory that exists but takes no new files (/proc, /sys).
      return directoryProblem(dir) === undefined ? `the directory ${displayName(dir)} takes no new files` : `the directory ${displayName(dir)} does not exist`;
    case 'ENOTDIR':
      return `${displayName(dir)} is not a directory`;
    case 'EACCES':
    case 'EPERM':
      return `the directory ${displayName(dir)} is not writable`;
    default:
      return undefined;
  }
}

/**
 * Refuses an empty file name for an output flag (`--out ""`, as a script's unset variable gives
 * it): `CORDON_BAD_INPUT`, exit 2, `--out "": a file name cannot be empty`. Without it the empty
 * path resolved to the working directory and was refused as `--out : … is a directory (EISDIR)`,
 * after the whole check had run.
 */
export function requireFileName(flag: string, path: string): void {
  if (path !== '') return;
  throw new CordonError(ERROR_CODES.BAD_INPUT, `${flag} "": a file name cannot be empty; name the file to write (\`${flag} -\` is standard output)`, { details: { flag, path } });
}

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
 * - a name for one of this process's descriptors (`/dev/stdout`, `/dev/fd/N`) writes through that
 *   descriptor; a FIFO or character device is written in place; a directory, socket or block
 *   device is refused ({@link placeOf});
 * - otherwise the file is replaced atomically (io/atomic-write.ts). A new file gets mode 0666
 *   minus the umask, as any program's output file would (reports hold commands that may carry
 *   secrets: under `umask 077` it is 0600); an existing file keeps its mode;
 * - a report written inside a git work tree is remembered as cordon's own
 *   (envelope/evidence/own-reports.ts), so the next `check` does not audit it as the agent's change;
 * - a report that would land inside an envelope's `.cordon/` is refused
 *   (envelope/state/state-dir-target.ts; commands refuse it as they parse `--out` already).
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
  // A name for one of this process's own descriptors: written through it, sharing its offset,
  // so `--out /dev/stdout` is `--out -` whatever stdout is (a pipe, a terminal, a file).
  const fd = ownDescriptor(out);
  if (fd === 1) return writeReport('-', text, options);
  requireFileName(options.flag ?? '--out', out);
  const bytes = Buffer.from(text, 'utf8');
  if (fd !== undefined) {
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      return out;
    } catch {
      // Not open for writing here after all: written as any other path below.
    }
  }
  const refuse = (reason: string, code: string) => new CordonError(ERROR_CODES.BAD_INPUT, `${options.flag ?? '--out'} ${displayName(out)}: cannot write the report: ${reason}`, { details: { path: out, errno: code || null } });
  // Inside an envelope's .cordon/ the report would make every envelope command refuse the directory.
  refuseFileTarget(options.flag ?? '--out', out);
  const place = placeOf(out);
  if (place.refused) throw refuse(place.refused, place.code);
  if (place.inPlace) {
    try {
      writeInPlace(out, bytes, place.inPlace);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      throw refuse(code === 'ENXIO' && place.inPlace === 'fifo' ? `no process opened it for reading within ${FIFO_READER_WAIT_MS / 1000} s` : reasonFor(error, dirname(out) || '.'), code);
    }
    return out;
  }
  let target: string;
  try {
    target = writeFileAtomic(out, bytes, { createMode: 0o666 });
  } catch (error) {
    throw refuse(reasonFor(error, dirname(out) || '.'), (error as NodeJS.ErrnoException).code ?? '');
  }
  await rememberReport(target, bytes);
  return target;
}

/** How a report reaches `out`: replacing a file (neither field), in place, or not at all. */
interface Place {
  /** Written where it is, as a shell's `>` would. */
  readonly inPlace?: 'fifo' | 'device';
  readonly refused?: string;
  readonly code: string;
}

/**
 * Where the report for `out` goes. Only a regular file is replaced (renamed over): a FIFO or a
 * character device (`/dev/null`, a terminal) is written in place, and renaming a file over it
 * would have destroyed it (as root, `--out /dev/null` replaced the system's `/dev/null`). A
 * directory, a socket and a block device (a disk) are refused.
 */
function placeOf(out: string): Place {
  let st;
  try {
    st = statSync(out);
  } catch {
    // Missing (a new file) or not reachable: the atomic write says why.
    return { code: '' };
  }
  if (st.isDirectory()) return { refused: 'it is a directory', code: 'EISDIR' };
  if (st.isSocket()) return { refused: 'it is a socket', code: 'ENXIO' };
  if (st.isBlockDevice()) return { refused: 'it is a block device (a disk): cordon writes reports to files, FIFOs and character devices only', code: 'ENOTSUP' };
  if (st.isFIFO()) return { inPlace: 'fifo', code: '' };
  if (st.isCharacterDevice()) return { inPlace: 'device', code: '' };
  return { code: '' };
}

/** `/dev/fd/N`, `/proc/self/fd/N` or `/proc/<pid>/fd/N`: a descriptor's name; group 1 the pid part, 2 the number. */
const DESCRIPTOR_LINK = /^\/(?:dev|proc\/(self|\d+))\/fd\/(\d+)$/;

/**
 * The descriptor of this process that `path` names, or undefined: `path` or a link on its way
 * (up to 40 hops; `/dev/stdout` is a link to `/proc/self/fd/1` on Linux) is `/dev/fd/N` or
 * `/proc/<this pid or self>/fd/N`. The file behind such a name may be a pipe, which has no
 * path at all, or a file the descriptor writes at its own offset.
 */
function ownDescriptor(path: string): number | undefined {
  let current = resolve(path);
  for (let hop = 0; hop < 40; hop++) {
    const m = DESCRIPTOR_LINK.exec(current);
    if (m) return m[1] === undefined || m[1] === 'self' || Number(m[1]) === process.pid ? Number(m[2]) : undefined;
    try {
      if (!lstatSync(current).isSymbolicLink()) return undefined;
      current = resolve(dirname(current), readlinkSync(current));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** How long a report waits for a process to open its FIFO for reading, ms. */
export const FIFO_READER_WAIT_MS = 5_000;

/**
 * Writes `bytes` to the FIFO or character device at `out` without creating or truncating
 * anything. A FIFO gets {@link FIFO_READER_WAIT_MS} for a reader to open it (a consumer started
 * beside cordon, `cat fifo & cordon check --out fifo`, may not have yet), then fails with
 * `ENXIO` instead of waiting for ever as a shell's `>` would: it is opened without blocking
 * until a reader is there, then again for blocking writes.
 */
function writeInPlace(out: string, bytes: Uint8Array, how: NonNullable<Place['inPlace']>): void {
  let probe: number | undefined;
  if (how === 'fifo') {
    for (const deadline = Date.now() + FIFO_READER_WAIT_MS; probe === undefined; ) {
      try {
        probe = openSync(out, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() >= deadline) throw error;
        sleepSync(50);
      }
    }
  }
  try {
    const fd = openSync(out, constants.O_WRONLY);
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    } finally {
      closeSync(fd);
    }
  } finally {
    if (probe !== undefined) closeSync(probe);
  }
}
