import { readdirSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** How deep {@link removeTree} walks by itself before it hands the rest to `fs.rmSync`. */
const MAX_DEPTH = 8;

/**
 * Removes the directory `dir` and everything in it, like `rmSync(dir, { recursive: true, force:
 * true })`: a missing `dir` is no error, symbolic links are removed, never followed. A small tree
 * (a private git directory: a dozen entries) is removed with one `readdir` per directory and an
 * `unlink` per file, without loading Node's `internal/fs/rimraf`, whose first use costs a check
 * 1.5–2 ms (`npm run bench:envelope`); anything unexpected (a busy or deeper tree, EACCES, a
 * Windows file still open) goes to `rmSync` itself, which retries and reports as it would.
 * @throws what `rmSync` throws for a tree it cannot remove.
 */
export function removeTree(dir: string): void {
  try {
    removeWalk(dir, 0);
  } catch {
    // Whatever is left (all of it for a missing `dir`, which `force` accepts).
    rmSync(dir, { recursive: true, force: true });
  }
}

function removeWalk(dir: string, depth: number): void {
  if (depth > MAX_DEPTH) throw Object.assign(new Error(`${dir}: deeper than ${MAX_DEPTH}`), { code: 'EDEEP' });
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removeWalk(path, depth + 1);
    else unlinkSync(path);
  }
  rmdirSync(dir);
}
