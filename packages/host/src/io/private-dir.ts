import { chmodSync, mkdirSync, statSync } from 'node:fs';
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
