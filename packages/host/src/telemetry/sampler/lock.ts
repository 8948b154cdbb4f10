import { linkSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempPathBeside, writeFileAtomic } from '../../io/atomic-write.js';
import { readRegularFile } from '../../io/safe-read.js';
import { nameNumber } from '@cordon/plugin-api';
import { isAlive, type ProcessIdentity } from './identity.js';

/** Who holds one generation of a session's sampler lock (`sampler.lock.<generation>`, JSON). */
export interface LockOwner extends ProcessIdentity {
  /** `hook`: the hook that won the lock and is spawning the sampler; `sampler`: the sampler itself. */
  readonly role: 'hook' | 'sampler';
  /** The generation this file is (1 for the first sampler of a session, +1 per restart). */
  readonly generation: number;
  /** When the owner wrote it, epoch ms. */
  readonly at: number;
}

/** Outcome of {@link acquireSamplerLock}. */
export type LockResult =
  | { readonly acquired: true; readonly generation: number }
  | { readonly acquired: false; readonly generation: number; readonly owner: LockOwner };

const PREFIX = 'sampler.lock.';

/** Path of generation `generation`'s lock file in session directory `dir`. */
export function lockPath(dir: string, generation: number): string {
  return join(dir, `${PREFIX}${generation}`);
}

/**
 * The highest lock generation present in `dir` (0 when none). Only a name whose generation is
 * written as {@link lockPath} writes it counts (the plugin API's `nameNumber`: `1`, `2`, …, up
 * to `Number.MAX_SAFE_INTEGER`); `sampler.lock.1e3`, `.0x10`, `.07`, `.1.0` or `. 7` is no
 * generation, and is left where it is.
 */
export function highestGeneration(dir: string): number {
  let high = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const n = nameNumber(name.slice(PREFIX.length));
    if (n !== undefined && n > high) high = n;
  }
  return high;
}

/** Largest lock record read: one owner's JSON is about 100 bytes. */
const LOCK_MAX_BYTES = 64 * 1024;

/**
 * Reads a lock file; `undefined` when it is missing, unparseable, not a regular file, a link or
 * larger than {@link LOCK_MAX_BYTES} (a session directory is the user's, but a file planted there
 * must not make the hook read a FIFO, follow a link out, or load a huge file into memory), or when
 * it is no owner record: `pid` a positive integer, `role` `hook` or `sampler`, `start` a number
 * when present. The one reader of locks: the lock itself, the sampler, `wrap`/`reduce`
 * (state.ts), `cordon top` and `cordon doctor`.
 */
export function readLockOwner(dir: string, generation: number): LockOwner | undefined {
  try {
    const owner: unknown = JSON.parse(readRegularFile(lockPath(dir, generation), { maxBytes: LOCK_MAX_BYTES, links: 'never' }).toString('utf8'));
    return isLockOwner(owner) ? owner : undefined;
  } catch {
    return undefined;
  }
}

function isLockOwner(value: unknown): value is LockOwner {
  if (typeof value !== 'object' || value === null) return false;
  const { pid, role, start } = value as Record<string, unknown>;
  return Number.isSafeInteger(pid) && (pid as number) > 0 && (role === 'hook' || role === 'sampler') && (start === undefined || (typeof start === 'number' && Number.isFinite(start)));
}

/**
 * Takes the session's sampler lock for `self`, or reports the live owner (a gap
 * in uncoalesced/cordon, fixed: exclusive creation plus a liveness check, never check-then-spawn).
 *
 * Locks are numbered generations that are only ever created, never broken or deleted: only the
 * highest can be alive, because generation N+1 is created only after N's owner was seen dead, and
 * a dead owner (pid + `starttime`) never comes back. Creating N+1 is `link(2)` of a fully written
 * temp file, which fails with EEXIST for every caller but one, so of any number of concurrent
 * callers exactly one wins and no reader ever sees a half-written lock.
 *
 * @param dir session directory (must exist)
 * @param self identity to record while the winner spawns the sampler
 * @throws Error when the next generation would pass `Number.MAX_SAFE_INTEGER` (a planted
 *   `sampler.lock.9007199254740991`: a larger number is not held exactly), or the file system's
 *   error creating the lock
 */
export function acquireSamplerLock(dir: string, self: ProcessIdentity): LockResult {
  let generation = highestGeneration(dir);
  for (;;) {
    if (generation > 0) {
      const owner = readLockOwner(dir, generation);
      if (owner && isAlive(owner)) return { acquired: false, generation, owner };
      if (!owner && beingWritten(lockPath(dir, generation))) return { acquired: false, generation, owner: { pid: 0, role: 'hook', generation, at: Date.now() } };
    }
    const next = generation + 1;
    if (!Number.isSafeInteger(next)) throw new Error(`sampler lock: no generation after ${generation} in ${dir}`);
    const content = JSON.stringify({ ...self, role: 'hook', generation: next, at: Date.now() } satisfies LockOwner);
    try {
      createExclusive(dir, lockPath(dir, next), content);
      return { acquired: true, generation: next };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      generation = next; // someone else created it first: judge that owner instead
    }
  }
}

/** How long an unparseable lock counts as being written by its creator (the `O_EXCL` fallback), ms. */
const WRITE_GRACE_MS = 2000;

/**
 * Creates `path` holding `content` only if it does not exist (EEXIST otherwise): `link(2)` of a
 * fully written temp file, so no reader sees it half written; on a filesystem without hard links,
 * `open(O_CREAT | O_EXCL)` and a write, whose brief empty state {@link beingWritten} covers.
 */
function createExclusive(dir: string, path: string, content: string): void {
  const tmp = tempPathBeside(path);
  writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** An unparseable lock younger than {@link WRITE_GRACE_MS}: its creator is still writing it. */
function beingWritten(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < WRITE_GRACE_MS;
  } catch {
    return false;
  }
}

/**
 * Replaces the owner recorded in generation `generation` (atomic rename), used once the sampler's
 * pid is known. Only the holder of that generation may call it.
 */
export function recordLockOwner(dir: string, owner: LockOwner): void {
  writeFileAtomic(lockPath(dir, owner.generation), JSON.stringify(owner), { mode: 0o600, links: 'replace', durable: false });
}
