import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { loopDetail } from './link-chain.js';

/** Why {@link readRegularFile} refused a path. */
export type UnsafeReadReason = 'missing' | 'symlink' | 'outside-root' | 'not-regular' | 'too-large';

/**
 * A read that {@link readRegularFile} refused. `reason` says why; the message names the path
 * and never holds any of the file's bytes (a refused file may be someone else's secret).
 */
export class UnsafeReadError extends Error {
  override readonly name = 'UnsafeReadError';
  constructor(
    readonly path: string,
    readonly reason: UnsafeReadReason,
    /** What is wrong, without the path (`is not a regular file (a FIFO)`), for messages that name the file their own way. */
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
  }
}

/** Options of {@link readRegularFile}. */
export interface SafeReadOptions {
  /** Largest size accepted, bytes. A larger file is refused with `too-large`, unread. */
  readonly maxBytes: number;
  /**
   * What a symbolic link at `path` (the last component) may do: `'never'` refuses it
   * (`O_NOFOLLOW`); `'within-root'` follows it only when its resolved target lies inside
   * {@link root}; `'always'` follows it (the file type and size checks still apply).
   * Default `'never'`.
   */
  readonly links?: 'never' | 'within-root' | 'always';
  /** Directory the resolved file must stay inside, for `links: 'within-root'`. */
  readonly root?: string;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Reads a file that someone else may control (a payload's `transcript_path`, a repository's
 * `.cordon.json`, cordon's own state inside a work tree an agent can write) without ever
 * blocking or reading without bound:
 *
 * - opened `O_RDONLY | O_NONBLOCK` (a FIFO with no writer opens at once instead of hanging the
 *   caller) and, unless links are allowed, `O_NOFOLLOW`;
 * - only a regular file is read (`fstat` on the open descriptor, so a swap between check and
 *   read cannot matter): a FIFO, socket, device (`/dev/zero`) or directory is `not-regular`;
 * - at most `maxBytes` bytes: a larger file is `too-large` and is not read.
 *
 * @returns the whole file.
 * @throws {UnsafeReadError} with `missing` (ENOENT), `symlink`, `outside-root`, `not-regular`
 *   or `too-large`; other I/O errors (EACCES, EIO) propagate as Node errno errors.
 */
export function readRegularFile(path: string, options: SafeReadOptions): Buffer {
  const { fd, stat } = openRegularFile(path, options);
  try {
    if (stat.size > options.maxBytes) {
      throw new UnsafeReadError(path, 'too-large', `is ${stat.size} bytes, over the ${options.maxBytes}-byte limit for this file`);
    }
    // Read to the size limit plus one byte: a file that grows while it is read is caught too.
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, options.maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > options.maxBytes) throw new UnsafeReadError(path, 'too-large', `grew past the ${options.maxBytes}-byte limit for this file while being read`);
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * The last at most `options.maxBytes` bytes of a regular file, opened exactly as
 * {@link readRegularFile} opens it (non-blocking, regular files only, links per
 * `options.links`); a larger file is not refused but read from `size - maxBytes` on (for logs
 * and transcripts, whose newest lines are at the end). The first bytes returned may be the
 * middle of a line or of a UTF-8 character.
 * @throws {UnsafeReadError} `missing`, `symlink`, `outside-root` or `not-regular`; other I/O
 *   errors propagate.
 */
export function readRegularFileTail(path: string, options: SafeReadOptions): Buffer {
  return readRegularFileWindow(path, options).bytes;
}

/** What {@link readRegularFileWindow} read: the bytes and where they lie in the file. */
export interface FileWindow {
  /** The bytes read: the file from {@link start} to its end (as far as it reached when read). */
  readonly bytes: Buffer;
  /** Offset of the first byte read, bytes from the start of the file. */
  readonly start: number;
  /** The file's size when it was opened (`fstat`), bytes. */
  readonly size: number;
  /** Inode number and device: together they tell a file replaced under the same name. */
  readonly ino: number;
  readonly dev: number;
}

/**
 * The end of a regular file from offset `from` (default 0), but never more than its last
 * `options.maxBytes` bytes: bytes `max(from, size - maxBytes)` to `size`, opened exactly as
 * {@link readRegularFile} opens it. For readers that follow a growing file (each call reads only
 * what was appended since the last one, and at most `maxBytes` of it), and for bounded tails.
 * Costs one open, one `fstat` and the reads of at most `maxBytes` bytes, whatever the file's size.
 * @throws {UnsafeReadError} `missing`, `symlink`, `outside-root` or `not-regular`; other I/O
 *   errors propagate.
 */
export function readRegularFileWindow(path: string, options: SafeReadOptions & { readonly from?: number }): FileWindow {
  const { fd, stat } = openRegularFile(path, options);
  try {
    const start = Math.min(stat.size, Math.max(options.from ?? 0, stat.size - Math.max(0, options.maxBytes)));
    const length = stat.size - start;
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buffer, done, length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return { bytes: buffer.subarray(0, done), start, size: stat.size, ino: stat.ino, dev: stat.dev };
  } finally {
    closeSync(fd);
  }
}

/**
 * The first at most `options.maxBytes` bytes of a regular file, opened exactly as
 * {@link readRegularFile} opens it; a larger file is not refused, only its head is read (the first
 * line of a log). The last bytes returned may be the middle of a line or of a UTF-8 character.
 * @throws {UnsafeReadError} `missing`, `symlink`, `outside-root` or `not-regular`; other I/O
 *   errors propagate.
 */
export function readRegularFileHead(path: string, options: SafeReadOptions): Buffer {
  const { fd, stat } = openRegularFile(path, options);
  try {
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, Math.max(0, options.maxBytes)));
    let done = 0;
    while (done < buffer.length) {
      const n = readSync(fd, buffer, done, buffer.length - done, done);
      if (n === 0) break;
      done += n;
    }
    return buffer.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/** Opens `path` for {@link readRegularFile}: the descriptor and its `fstat`, refused unless a regular file. */
/**
 * Opens a file for reading exactly as {@link readRegularFile} does (`O_RDONLY | O_NONBLOCK`, links
 * per `options.links`, a regular file only, checked with `fstat` on the descriptor) and returns
 * the descriptor, which the caller closes, with its `fstat`. `options.maxBytes` is not checked.
 * @throws {UnsafeReadError} `missing`, `symlink` (a link where links are refused, or a link loop
 *   where they are followed: link-chain.ts `loopDetail` words it), `outside-root` or `not-regular`; other I/O
 *   errors (EACCES, EIO) propagate as Node errno errors.
 */
export function openRegularFile(path: string, options: SafeReadOptions): { fd: number; stat: Stats } {
  const links = options.links ?? 'never';
  let target = path;
  if (links === 'within-root') {
    target = resolveWithinRoot(path, options.root ?? dirname(path));
  }
  let fd: number;
  try {
    fd = openSync(target, constants.O_RDONLY | NONBLOCK | (links === 'never' ? NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UnsafeReadError(path, 'missing', 'no such file');
    // Under O_NOFOLLOW ELOOP means the path is a link; when links are followed it means a loop.
    if (code === 'ELOOP') throw new UnsafeReadError(path, 'symlink', links === 'never' && isSymlink(path) ? 'is a symbolic link; cordon does not follow it' : loopDetail(path));
    if (code === 'ENXIO') throw new UnsafeReadError(path, 'not-regular', 'is not a regular file (a socket or a FIFO)');
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnsafeReadError(path, 'not-regular', `is not a regular file (${fileKind(stat)})`);
    return { fd, stat };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Whether a read failed because nothing is at the path: an {@link UnsafeReadError} `missing`. */
export function isMissingFile(error: unknown): boolean {
  return error instanceof UnsafeReadError && error.reason === 'missing';
}

/**
 * Like {@link readRegularFile} but `undefined` when the file does not exist (`missing`); every
 * other refusal still throws.
 */
export function readRegularFileIfExists(path: string, options: SafeReadOptions): Buffer | undefined {
  try {
    return readRegularFile(path, options);
  } catch (error) {
    if (error instanceof UnsafeReadError && error.reason === 'missing') return undefined;
    throw error;
  }
}

/**
 * The real path of `path` when it lies inside `root` (both resolved through every link).
 * @throws {UnsafeReadError} `missing`, `outside-root`, or `symlink` for a link loop.
 */
export function resolveWithinRoot(path: string, root: string): string {
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(path);
    realRoot = realpathSync(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UnsafeReadError(path, 'missing', 'no such file (or a dangling symbolic link)');
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafeReadError(path, 'symlink', loopDetail(path));
    throw error;
  }
  if (!isInside(realRoot, real)) {
    throw new UnsafeReadError(path, 'outside-root', `is a symbolic link that leaves ${root}; cordon does not follow it`);
  }
  return real;
}

/** True when `child` is `parent` or lies below it (absolute, already-resolved paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** True when `path` itself (not its target) is a symbolic link; false when it does not exist. */
export function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * What is at `path` (links followed) when reading it could wait for ever or never end: `a FIFO`
 * (its open waits for a writer), `a socket`, `a character device` (`/dev/zero` never ends) or `a
 * block device`. `undefined` for a regular file, a directory, nothing (or a dangling link), or a
 * path that cannot be looked at (EACCES, ELOOP): whoever reads it then meets that error at once.
 * For files another program (oclif, Node's module loader) reads with a blocking open, which cordon
 * cannot open non-blocking itself ({@link openRegularFile} is the way for files cordon reads).
 */
export function blockingFileKind(path: string): string | undefined {
  let stat: Stats | undefined;
  try {
    stat = statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return stat && !stat.isFile() && !stat.isDirectory() ? fileKind(stat) : undefined;
}

/** A word for a file type, for messages (`a FIFO`, `a regular file`). */
export function fileKind(stat: { isFile(): boolean; isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSymbolicLink(): boolean }): string {
  if (stat.isFile()) return 'a regular file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** `path` made absolute against `cwd`. */
export function absolute(path: string, cwd = process.cwd()): string {
  return resolve(cwd, path);
}
