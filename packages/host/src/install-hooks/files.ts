import { accessSync, constants, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { ConfigChange } from '@cordon/plugin-api';

/** Reads a file as UTF-8; `undefined` when it does not exist (other errors propagate). */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** True when `path` is an existing directory (symlinks followed). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The first executable called `name` on `pathVar` (a `PATH` value); `undefined` when none. */
export function whichIn(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * Applies one change: writes the new text through a temp file and a rename (an agent reading the
 * file concurrently sees the old or the new version, never half), keeping an existing file's
 * mode (new files get 0600 unless the directory's other files say otherwise: agents' configs can
 * hold keys), or deletes the file.
 */
export function applyChange(change: ConfigChange): void {
  if (change.after === undefined) {
    rmSync(change.path, { force: true });
    return;
  }
  mkdirSync(dirname(change.path), { recursive: true });
  let mode = 0o600;
  try {
    mode = statSync(change.path).mode & 0o777;
  } catch {
    // New file.
  }
  const tmp = `${change.path}.cordon-${process.pid}.tmp`;
  writeFileSync(tmp, change.after, { mode });
  renameSync(tmp, change.path);
}
