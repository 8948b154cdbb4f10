import { discoverRepo } from './git/repo.js';
import { acquireLock, type LockHandle } from './lock.js';
import { envelopeExists, removeEnvelope } from './state/store.js';

/**
 * `cordon reset` (research §13): removes `.cordon/` under the lock; a no-op without the lock
 * when nothing is armed. Never validates the state (a corrupt envelope can always be reset),
 * never touches source files, the `info/exclude` line or anything else. Returns whether an
 * envelope was removed. Throws `CORDON_LOCK_HELD` (exit 2) when another process holds the lock.
 */
export async function reset(repo: string = process.cwd(), options: { lock?: LockHandle } = {}): Promise<{ removed: boolean; root: string }> {
  const loc = await discoverRepo(repo);
  if (!envelopeExists(loc.root)) return { removed: false, root: loc.root };
  const lock = options.lock ?? acquireLock(loc.lockFile, 'reset');
  try {
    return { removed: removeEnvelope(loc.root), root: loc.root };
  } finally {
    if (!options.lock) lock.release();
  }
}
