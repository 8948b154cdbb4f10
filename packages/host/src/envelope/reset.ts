import { discoverRepoOf } from './git/repo.js';
import { acquireLock, type LockHandle } from './lock.js';
import { stateDirOwner } from './state/own-dir.js';
import { finishInterrupted } from './state/recover.js';
import { CORDON_DIR, envelopePaths, foreignState, removeEnvelope } from './state/store.js';

/**
 * `cordon reset` (the BEKO2210/SkillQuarry cordon): under the lock, finishes what a killed cordon left half done
 * (a killed reset's deletion included: `finishInterrupted`), then removes `.cordon/` when it is
 * Cordon's own (`stateDirOwner`: only names Cordon writes, nothing git tracks; when git cannot
 * say, as with a damaged index, the names and types alone decide). Never validates
 * the state (a corrupt envelope can always be reset), never touches source files, the
 * `info/exclude` line or anything else. Returns whether an envelope was removed.
 * Throws `CORDON_STATE_FOREIGN` (exit 2, nothing touched) for a `.cordon/` that is not Cordon's,
 * `CORDON_LOCK_HELD` (exit 2) when another process holds the lock.
 */
export async function reset(repo?: string, options: { lock?: LockHandle } = {}): Promise<{ removed: boolean; root: string }> {
  const loc = await discoverRepoOf(repo);
  const lock = options.lock ?? acquireLock(loc.lockFile, 'reset');
  try {
    await finishInterrupted(loc);
    const owner = await stateDirOwner(envelopePaths(loc.root).dir, loc, CORDON_DIR);
    if (owner.kind === 'foreign') throw foreignState(loc.root, owner.reason, owner.tracked);
    return { removed: owner.kind === 'own' && removeEnvelope(loc), root: loc.root };
  } finally {
    if (!options.lock) lock.release();
  }
}
