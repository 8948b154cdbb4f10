import { closeSync, constants, fchmodSync, fchownSync, fstatSync, fsyncSync, lstatSync, openSync, readlinkSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { randomHex } from '../util/random.js';
import { sleepSync } from '../util/sleep-sync.js';

/** Filesystem calls {@link fsyncDirectory} uses; tests pass failing ones. */
export interface DirSyncOps {
  openSync(path: string, flags: string): number;
  fsyncSync(fd: number): void;
  closeSync(fd: number): void;
}

const realOps: DirSyncOps = { openSync: (p, f) => openSync(p, f), fsyncSync, closeSync };

/** errno codes a directory fsync may legitimately meet (filesystems without directory fsync). */
const TOLERATED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EACCES', 'EISDIR', 'EPERM']);

/** Most links followed when resolving where a write lands (the kernel's own limit is 40). */
const MAX_LINK_HOPS = 40;

/** Exclusive, never-through-a-link creation flags for temp files (`O_CREAT|O_EXCL|O_NOFOLLOW`). */
export const EXCLUSIVE_CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /**
   * Mode of the file written. Default: the mode the existing file has (so a user's 0644
   * config stays 0644), else 0o600. Set exactly with `fchmod`, whatever the umask.
   */
  readonly mode?: number;
  /**
   * Mode requested for a file that does not exist yet, passed to `open(2)` so the umask applies
   * (reports: `0o666` gives 0644 under umask 022 and 0600 under 077). Ignored when `mode` is
   * set; an existing file keeps its mode.
   */
  readonly createMode?: number;
  /**
   * When `path` is a symbolic link: `'target'` (default) writes the file the link chain ends
   * at, with the temp file beside that target, so a dotfiles link stays a link and its target
   * changes; `'replace'` replaces the link itself with a regular file.
   */
  readonly links?: 'target' | 'replace';
  /** fsync the file and its directory (default true). */
  readonly durable?: boolean;
  /**
   * With `durable`, fsync the directory after the rename (default true). A caller that renames a
   * second file into the same directory right after, with its directory fsync, passes false for
   * the first: one directory fsync makes both renames durable (envelope/state/store.ts
   * `saveAuditAndState`).
   */
  readonly syncDirectory?: boolean;
}

/**
 * A name for a temp file beside `path`: `.<name>.<24 random hex digits>.tmp`. Unpredictable, so
 * nobody can plant a link under it in advance; always opened with {@link EXCLUSIVE_CREATE}.
 */
export function tempPathBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomHex(12)}.tmp`);
}

/** True for names {@link tempPathBeside} makes (for clean-up of temp files a killed writer left). */
export function isTempName(name: string): boolean {
  return /^\..+\.[0-9a-f]{24}\.tmp$/.test(name);
}

/**
 * The file a write to `path` should land in: `path` itself, or, when it is a symbolic link
 * (absolute or relative, chained), the final target of the chain (which need not exist yet).
 * @throws Error when the chain is longer than 40 links (a loop).
 */
export function writeTarget(path: string): string {
  let current = resolve(path);
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    let link: string;
    try {
      if (!lstatSync(current).isSymbolicLink()) return current;
      link = readlinkSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return current;
      throw error;
    }
    current = resolve(dirname(current), link);
  }
  throw Object.assign(new Error(`${path}: too many levels of symbolic links`), { code: 'ELOOP' });
}

/**
 * Writes `data` to `path` atomically: a temp file with an unpredictable name beside the file
 * actually written (see {@link AtomicWriteOptions.links}), created exclusively and never through
 * a link, written whole, fsynced, renamed over the target, then the directory fsynced. A reader
 * sees the old or the new content, never a mix; a crash leaves the old file and at most a temp
 * file that {@link isTempName} recognises. An existing file keeps its owner and group where this
 * process may give them (root), not only its mode. Any failure removes the temp file and rethrows;
 * EINVAL/ENOTSUP/EACCES from the directory fsync is tolerated, EIO is not.
 * @returns the path that was written (the link's target when `path` is a link).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions | number = {}): string {
  const opts: AtomicWriteOptions = typeof options === 'number' ? { mode: options } : options;
  const target = opts.links === 'replace' ? resolve(path) : writeTarget(path);
  refuseSpecial(target, opts.links === 'replace');
  let mode = opts.mode;
  // A new file under `createMode`: opened with it and not chmodded, so the umask decides.
  let umasked = false;
  let owner: { uid: number; gid: number } | undefined;
  try {
    const existing = statSync(target);
    owner = { uid: existing.uid, gid: existing.gid };
    if (mode === undefined) mode = existing.mode & 0o7777;
  } catch {
    if (mode === undefined) {
      umasked = opts.createMode !== undefined;
      mode = opts.createMode ?? 0o600;
    }
  }
  const durable = opts.durable ?? true;
  const temp = tempPathBeside(target);
  let fd: number | undefined;
  try {
    fd = openSync(temp, EXCLUSIVE_CREATE, mode);
    if (owner) keepOwner(fd, owner);
    if (!umasked) fchmodSync(fd, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameOver(temp, target);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      // Already gone (or never created).
    }
    throw error;
  }
  if (durable && opts.syncDirectory !== false) fsyncDirectory(dirname(target));
  return target;
}

/**
 * Gives the temp file `fd` the owner and group of the file it replaces, where they differ from
 * this process's: a rename puts a new inode in place, owned by whoever wrote it, so root editing
 * another user's file (`sudo cordon install-hooks` with that user's `HOME`) would otherwise leave
 * a root-owned file that its owner can no longer write, or read at mode 0600. Called before the
 * `fchmod`, since `fchown` clears set-id bits. A process that may not give the file away
 * (`EPERM`: not root, and the owner or group is not its own) keeps the one it has.
 */
function keepOwner(fd: number, owner: { readonly uid: number; readonly gid: number }): void {
  if (process.platform === 'win32') return;
  const own = fstatSync(fd);
  if (own.uid === owner.uid && own.gid === owner.gid) return;
  try {
    fchownSync(fd, owner.uid, owner.gid);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    try {
      fchownSync(fd, own.uid, owner.gid); // the group alone, when it is one of ours
    } catch {
      // Neither: the new file is ours.
    }
  }
}

/**
 * Throws when what is at `target` is not a regular file (nor, with `linkOk`, a symbolic link):
 * a rename over a FIFO, socket or device replaces it with a file (run as root, `/dev/null`
 * itself), which no caller wants. Code `EISDIR` for a directory, else `EFTYPE`.
 */
function refuseSpecial(target: string, linkOk: boolean): void {
  let st;
  try {
    st = lstatSync(target, { throwIfNoEntry: false });
  } catch {
    return; // Unreachable: the write that follows says why.
  }
  if (!st || st.isFile() || (linkOk && st.isSymbolicLink())) return;
  const code = st.isDirectory() ? 'EISDIR' : 'EFTYPE';
  throw Object.assign(new Error(`${code}: ${target} is not a regular file; it is left as it is`), { code });
}

/** Error codes a rename over a file meets on Windows while another process holds it open without `FILE_SHARE_DELETE` (a virus scanner, an indexer, an editor); they pass within moments. */
const WINDOWS_TRANSIENT = new Set(['EPERM', 'EACCES', 'EBUSY']);

/** Waits between rename attempts on Windows, ms: about 1.5 s in all. */
const WINDOWS_RENAME_BACKOFF_MS = [10, 20, 40, 80, 160, 320, 400, 500];

/**
 * `rename(from, to)` replacing `to`. On Windows a rename over a file another process has open
 * without `FILE_SHARE_DELETE` fails with EPERM/EACCES/EBUSY until that process lets go (Node's own
 * opens share delete, so this is a scanner or an editor); there it is retried with a growing
 * wait, about 1.5 s in all, before the error is thrown. Elsewhere one attempt.
 * @param platform `process.platform` (tests pass `'win32'`); `rename` the call to make (tests).
 */
export function renameOver(from: string, to: string, platform: NodeJS.Platform = process.platform, rename: (from: string, to: string) => void = renameSync): void {
  for (let attempt = 0; ; attempt++) {
    try {
      rename(from, to);
      return;
    } catch (error) {
      const wait = WINDOWS_RENAME_BACKOFF_MS[attempt];
      if (platform !== 'win32' || wait === undefined || !WINDOWS_TRANSIENT.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      sleepSync(wait);
    }
  }
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
