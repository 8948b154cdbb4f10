import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireLock, readLock, type LockHandle } from '../envelope/lock.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { ensurePrivateDir } from '../io/private-dir.js';

/** The lock file's name in cordon's data directory, beside the install record it guards. */
export const INSTALL_LOCK_FILE = 'install-hooks.lock';

/** How long a writing run waits for another one to finish before it refuses, ms. */
export const INSTALL_LOCK_WAIT_MS = 30_000;

/** How often the lock is tried again while another run holds it, ms. */
const RETRY_MS = 100;

/**
 * Takes the lock of the writing `install-hooks` and `uninstall-hooks` runs
 * (`<dataDir>/install-hooks.lock`, the envelope's lock protocol: envelope/lock.ts), so two runs
 * at once do not plan on the same bytes or each save an install record (`install-hooks.json`)
 * that drops the other's files. A run that finds it held waits, trying again every 100 ms, up to
 * `waitMs`; a lock whose holder is gone is taken over.
 * @throws `CORDON_LOCK_HELD` naming the holder when it is still held after `waitMs`, or when the
 *   lock path holds something that is no lock (a directory); `CORDON_HOOKS_WRITE_FAILED` when the
 *   lock cannot be created (the data directory not writable). Nothing has been written then.
 */
export async function takeInstallLock(dataDir: string, command: string, waitMs = INSTALL_LOCK_WAIT_MS): Promise<LockHandle> {
  const path = join(dataDir, INSTALL_LOCK_FILE);
  try {
    ensurePrivateDir(dataDir);
  } catch (error) {
    throw cannotLock(path, error);
  }
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return acquireLock(path, command);
    } catch (error) {
      if (!(error instanceof CordonError) || error.code !== ERROR_CODES.LOCK_HELD) throw cannotLock(path, error);
      const holder = readLock(path);
      if (!holder || Date.now() >= deadline) throw heldBy(path, holder, waitMs, error);
      await sleep(RETRY_MS);
    }
  }
}

function cannotLock(path: string, error: unknown): CordonError {
  const reason = (error as Error).message ?? String(error);
  return new CordonError(ERROR_CODES.HOOKS_WRITE_FAILED, `could not take the lock ${path} that keeps two install-hooks runs apart: ${reason}; nothing was written`, { cause: error, details: { lock: path, not_written: [] } });
}

function heldBy(path: string, holder: ReturnType<typeof readLock>, waitMs: number, error: CordonError): CordonError {
  if (!holder) return new CordonError(ERROR_CODES.LOCK_HELD, `the lock ${path} that keeps two install-hooks runs apart cannot be used (${error.message}); nothing was written`, { cause: error, details: { lock: path, holder: null } });
  return new CordonError(
    ERROR_CODES.LOCK_HELD,
    `another cordon process is writing agent configs (${holder.command}, pid ${holder.pid} on ${holder.host}, since ${holder.since}) and did not finish within ${Math.round(waitMs / 1000)} s; nothing was written: wait for it to finish, or stop it (kill ${holder.pid}), then run again; lock file ${path}`,
    { cause: error, details: { lock: path, holder } },
  );
}
