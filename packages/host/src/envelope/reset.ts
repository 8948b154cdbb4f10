import { discoverRepoOf } from './git/repo.js';
import { acquireLock, type LockHandle } from './lock.js';
import { stateDirOwner } from './state/own-dir.js';
import { finishInterrupted } from './state/recover.js';
import { CORDON_DIR, envelopePaths, foreignState, removeEnvelope, removeEnvelopeFiles } from './state/store.js';

/** What {@link reset} did. */
export interface ResetResult {
  /** Whether an envelope was removed. */
  readonly removed: boolean;
  readonly root: string;
  /**
   * Files cordon did not write that were in `.cordon/` beside the envelope and are still there
   * (names, sorted); absent when there were none.
   */
  readonly kept?: readonly string[];
}

/**
 * `cordon reset` (the BEKO2210/SkillQuarry cordon): under the lock, finishes what a killed cordon left half done
 * (a killed reset's deletion included: `finishInterrupted`), then removes `.cordon/` when it is
 * Cordon's own (`stateDirOwner`: only names Cordon writes, nothing git tracks; when git cannot
 * say, as with a damaged index, the names and types alone decide). An envelope beside which
 * someone put files cordon did not write, none of them tracked (a report written into
 * `.cordon/`; with a damaged index, by names and types as above), loses its own files and keeps theirs where they are: nothing of theirs is deleted
 * or moved, and `kept` names them (they must leave `.cordon/` before the next `cordon arm`).
 * Never validates the state (a corrupt envelope can always be reset), never touches source
 * files, the `info/exclude` line or anything else.
 * Throws `CORDON_STATE_FOREIGN` (exit 2, nothing touched) for a `.cordon/` that is not Cordon's,
 * `CORDON_LOCK_HELD` (exit 2) when another process holds the lock.
 */
export async function reset(repo?: string, options: { lock?: LockHandle } = {}): Promise<ResetResult> {
  const loc = await discoverRepoOf(repo);
  const lock = options.lock ?? acquireLock(loc.lockFile, 'reset');
  try {
    await finishInterrupted(loc);
    const owner = await stateDirOwner(envelopePaths(loc.root).dir, loc, CORDON_DIR);
    if (owner.kind === 'foreign') {
      // Not when git tracks something there (a tracked config.json is someone else's file); when git
      // cannot say (a damaged index), names and types decide, as they do for an envelope without strays.
      if (owner.holdsEnvelope && owner.tracked !== true) return { removed: true, root: loc.root, kept: removeEnvelopeFiles(loc.root) };
      throw foreignState(loc.root, owner);
    }
    return { removed: owner.kind === 'own' && removeEnvelope(loc), root: loc.root };
  } finally {
    if (!options.lock) lock.release();
  }
}
