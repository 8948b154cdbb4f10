import { realpathSync } from 'node:fs';

/**
 * The canonical absolute path of `path` (every symlink resolved), as `fs.realpathSync` gives it;
 * throws what it throws (`ENOENT` …). Outside Windows it asks the system (`realpath(3)` through
 * `fs.realpathSync.native`): Node's JavaScript `realpathSync` `lstat`s each component in turn,
 * 110–360 µs a call without TurboFan against 20–140 µs, and `check` resolves four paths before
 * its first git command (`npm run bench:envelope`). Windows keeps the JavaScript one, which
 * also resolves substituted drives and paths `realpath` there does not.
 */
export function realPath(path: string): string {
  return process.platform === 'win32' ? realpathSync(path) : realpathSync.native(path);
}
