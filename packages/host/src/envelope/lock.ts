import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { CordonError, ERROR_CODES } from '../errors/index.js';

/**
 * The repository lock (research/cordon-envelope.md §11; DESIGN.md "Data"): the file at
 * `git rev-parse --git-path cordon.lock` (per work tree), never waited on.
 *
 * Node has no `flock`, so the lock is a file that exists only while held (§20 "Node
 * specifics"). It is created complete and exclusively: the owner record is written to a temp
 * file that is then hard-linked to the lock path (`link` fails when the path exists). The record
 * names the holder: `{pid, host, start, nonce, command, since}`, where `start` is the process's
 * boot id and start time on Linux (so a recycled pid is not mistaken for the holder).
 *
 * A lock whose holder is on this host and no longer runs (no such pid, or a pid with another
 * start time) is stale and is taken over: the stale file is renamed aside, the renamed file is
 * checked to be the very record judged stale (else it is put back), then removed, and the lock
 * is created as usual. A lock from another host is never taken over. Release removes the file
 * only while it still holds this process's nonce.
 */

/** What a lock file holds. */
export interface LockRecord {
  readonly pid: number;
  readonly host: string;
  /** `<boot id>:<start ticks>` on Linux, else null. */
  readonly start: string | null;
  readonly nonce: string;
  /** What took the lock (`check`, `arm`, `run`, …). */
  readonly command: string;
  /** ISO-8601 time it was taken. */
  readonly since: string;
}

/** A held lock. */
export interface LockHandle {
  readonly path: string;
  readonly record: LockRecord;
  /** True once released. */
  readonly released: boolean;
  /** Removes the lock if it is still ours; idempotent. */
  release(): void;
}

/**
 * Takes the lock at `path` for `command`, taking over a stale one (see the module comment).
 * Throws `CORDON_LOCK_HELD` (exit 2) at once when a live process holds it; the message names
 * the holder. The lock is also released when this process exits normally.
 */
export function acquireLock(path: string, command: string): LockHandle {
  const record: LockRecord = { pid: process.pid, host: hostname(), start: processStart(process.pid), nonce: randomBytes(12).toString('hex'), command, since: new Date().toISOString() };
  if (!tryCreate(path, record)) {
    const holder = readRecord(path);
    if (holder === undefined) {
      // Released between our attempt and the read: one more try.
      if (!tryCreate(path, record)) throw held(path, readRecord(path));
    } else if (isStale(holder) && takeOver(path, holder)) {
      if (!tryCreate(path, record)) throw held(path, readRecord(path));
    } else {
      throw held(path, holder);
    }
  }
  let released = false;
  const onExit = () => handle.release();
  const handle: LockHandle = {
    path,
    record,
    get released() {
      return released;
    },
    release() {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      if (readRecord(path)?.nonce === record.nonce) {
        try {
          unlinkSync(path);
        } catch {
          // Already removed.
        }
      }
    },
  };
  process.once('exit', onExit);
  return handle;
}

/** Runs `fn` holding the lock at `path`, releasing it afterwards whatever happens. */
export async function withLock<T>(path: string, command: string, fn: (lock: LockHandle) => Promise<T>): Promise<T> {
  const lock = acquireLock(path, command);
  try {
    return await fn(lock);
  } finally {
    lock.release();
  }
}

/** The current holder of the lock at `path`, or undefined when it is free (or unreadable). */
export function readLock(path: string): LockRecord | undefined {
  return readRecord(path);
}

/**
 * True when `record`'s holder is certainly gone: same host, and its pid is not running or
 * runs with another start time. A holder on another host is never stale.
 */
export function isStale(record: LockRecord): boolean {
  if (record.host !== hostname()) return false;
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    // EPERM: it runs under another user.
  }
  if (record.start !== null) {
    const now = processStart(record.pid);
    if (now !== null && now !== record.start) return true;
  }
  return false;
}

function tryCreate(path: string, record: LockRecord): boolean {
  const temp = `${path}.${record.nonce}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot create the lock ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Nothing to clean.
    }
  }
}

function takeOver(path: string, stale: LockRecord): boolean {
  const aside = `${path}.stale-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return false; // someone else moved it first
  }
  const moved = readRecord(aside);
  if (moved?.nonce !== stale.nonce) {
    // We moved a fresh lock another process took meanwhile: put it back.
    try {
      linkSync(aside, path);
    } catch {
      // A third process holds the path now; the record we moved is lost either way.
    }
    unlinkQuietly(aside);
    return false;
  }
  unlinkQuietly(aside);
  return true;
}

function readRecord(path: string): LockRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as LockRecord;
    if (typeof parsed.pid !== 'number' || typeof parsed.nonce !== 'string' || typeof parsed.host !== 'string') return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

function held(path: string, holder: LockRecord | undefined): CordonError {
  const who = holder ? ` (${holder.command}, pid ${holder.pid} on ${holder.host}, since ${holder.since})` : '';
  return new CordonError(ERROR_CODES.LOCK_HELD, `another Cordon process owns this repository${who}; lock file ${path}`, { details: { lock: path, holder } });
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

let bootId: string | null | undefined;

/** `<boot id>:<start time in clock ticks>` of `pid` from /proc (Linux), else null. */
export function processStart(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    bootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime), counted after the parenthesised command name, which may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return `${bootId}:${fields[19]}`;
  } catch {
    return null;
  }
}
