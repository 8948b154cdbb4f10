import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** Filesystem calls {@link fsyncDirectory} uses; tests pass failing ones (research §16.2 H03). */
export interface DirSyncOps {
  openSync(path: string, flags: string): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
}

const realOps: DirSyncOps = { openSync: (p, f) => openSync(p, f), fsyncSync, closeSync };

/** errno codes a directory fsync may legitimately meet (filesystems without directory fsync). */
const TOLERATED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EACCES', 'EISDIR', 'EPERM']);

/**
 * Writes `data` to `path` atomically (research §4.1): a temp file `.<name>.<random>` in the same
 * directory, created exclusively with `mode`, written, fsynced, renamed over `path`, then the
 * directory fsynced. Any failure removes the temp file and rethrows; an EINVAL/ENOTSUP/EACCES
 * from the directory fsync is tolerated, any other error (EIO) propagates.
 */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', mode);
    fchmodSync(fd, mode); // exact mode, whatever the umask
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // Already gone (or never created).
    }
    throw error;
  }
  fsyncDirectory(dir);
}

/** fsyncs a directory so a rename in it is durable; tolerates filesystems that refuse (see above). */
export function fsyncDirectory(dir: string, ops: DirSyncOps = realOps): void {
  let fd: number;
  try {
    fd = ops.openSync(dir, 'r');
  } catch (error) {
    if (TOLERATED.has((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    ops.fsyncSync(fd);
  } catch (error) {
    if (!TOLERATED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    ops.closeSync(fd);
  }
}
