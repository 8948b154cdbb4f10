import { chmodSync, closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Creates `dir` (and missing parents) owner-only: every directory this call creates is 0700,
 * set with `chmod` after creation so the umask cannot widen it. An existing directory keeps its
 * mode unless `tighten` is set, in which case group and other bits are removed (only when the
 * caller owns it; a shared parent such as `/tmp` is never touched because only created or
 * explicitly named directories are changed).
 * @returns `dir`.
 * @throws the mkdir/chmod error (EACCES, ENOTDIR).
 */
export function ensurePrivateDir(dir: string, tighten = false): string {
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first !== undefined) {
    // Every directory from `first` down to `dir` was created by this call.
    const top = resolve(first);
    for (let current = resolve(dir); ; current = dirname(current)) {
      chmodSync(current, 0o700);
      if (current === top || dirname(current) === current) break;
    }
  } else if (tighten) {
    const stat = statSync(dir);
    if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) chmodSync(dir, stat.mode & 0o700);
  }
  return dir;
}

/**
 * Makes sure the file `path` exists and is owner-only before anything writes to it (for files
 * another library creates, such as an SQLite database, whose later companions `-wal`/`-shm` take
 * the main file's mode). A missing file is created empty with `O_CREAT|O_EXCL|O_NOFOLLOW` and
 * mode 0600, set again with `fchmod` so the umask cannot change it; an existing regular file the
 * caller owns loses its group and other bits; a symlink or someone else's file is left alone.
 * The parent directory must exist.
 * @returns `path`.
 * @throws the open/chmod error other than EEXIST (EACCES, ENOENT for a missing parent).
 */
export function ensurePrivateFile(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    fchmodSync(fd, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    tightenPrivateFile(path);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return path;
}

/**
 * Removes group and other bits from an existing regular file the caller owns (not through a
 * symlink); a missing file, a symlink or someone else's file is left as it is.
 */
export function tightenPrivateFile(path: string): void {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (stat.isFile() && (stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) chmodSync(path, stat.mode & 0o700);
}
