import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { writeFileAtomic, writeTarget } from '../io/atomic-write.js';
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
 * Applies one change: writes the new text atomically through {@link writeFileAtomic} (an agent
 * reading the file concurrently sees the old or the new version, never half). A config that is a
 * symbolic link (a dotfiles repository) keeps its link; the file it points at is written, with
 * the temp file beside that target. An existing file keeps its mode; a new one is 0600 (agents'
 * configs can hold keys). `after === undefined` deletes the file.
 */
export function applyChange(change: ConfigChange): void {
  if (change.after === undefined) {
    rmSync(change.path, { force: true });
    return;
  }
  const target = writeTarget(change.path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileAtomic(target, change.after);
}
