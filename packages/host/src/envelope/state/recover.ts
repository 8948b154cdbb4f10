import { readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isTempName } from '../../io/atomic-write.js';
import { cleanPrivateTempDirs } from '../../io/private-temp.js';
import type { RepoLocation } from '../git/repo.js';
import { cleanLockLeftovers } from '../lock.js';
import { stateDirOwner } from './own-dir.js';
import { envelopePaths, isScratchName } from './store.js';

/** Prefixes of the private temp directories an audit makes (`privateTempDir`). */
export const PRIVATE_TEMP_PREFIXES = ['cordon-git-', 'cordon-rules-'] as const;

/**
 * Finishes or rolls back whatever a killed cordon left half done, before a locked command
 * (`arm`, `check`, `reset`, `run`, `resume`) goes on. The caller
 * holds the repository lock, so every writer of these files is gone:
 *
 * - a killed `reset` (`.cordon/` already renamed to a scratch directory): the deletion is finished;
 * - a killed `arm` (the envelope built in a scratch directory, never renamed into place): the
 *   scratch directory is removed, so nothing was armed;
 * - temp files of killed atomic writes inside `.cordon/` are removed;
 * - temp files and aside copies of killed lock takers, when their pid is gone (`cleanLockLeftovers`);
 * - private `cordon-git-*` / `cordon-rules-*` directories in the temp dir whose owner process is
 *   gone (`cleanPrivateTempDirs`).
 *
 * A scratch directory is removed only when it is recognisably cordon's (`stateDirOwner`); one
 * that is not is left alone. Returns what was removed (names), for tests and logs; never throws
 * for a leftover it cannot remove (the next command tries again).
 */
export async function finishInterrupted(loc: RepoLocation): Promise<string[]> {
  const done: string[] = [];
  for (const [dir, inGitDir] of [[loc.gitDir, true], [loc.root, false]] as const) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!isScratchName(name, inGitDir)) continue;
      const path = join(dir, name);
      const owner = await stateDirOwner(path, loc, inGitDir ? undefined : name);
      if (owner.kind !== 'own') continue;
      try {
        rmSync(path, { recursive: true, force: true });
        done.push(path);
      } catch {
        // Tried again by the next command.
      }
    }
  }
  const stateDir = envelopePaths(loc.root).dir;
  let inside: string[] = [];
  try {
    inside = readdirSync(stateDir);
  } catch {
    inside = [];
  }
  for (const name of inside) {
    if (!isTempName(name)) continue;
    try {
      unlinkSync(join(stateDir, name));
      done.push(join(stateDir, name));
    } catch {
      // Tried again by the next command.
    }
  }
  for (const name of cleanLockLeftovers(loc.lockFile)) done.push(name);
  for (const name of cleanPrivateTempDirs(PRIVATE_TEMP_PREFIXES)) done.push(name);
  return done;
}
