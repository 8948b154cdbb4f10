import { closeSync, linkSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { EXCLUSIVE_CREATE, tempPathBeside } from '../io/atomic-write.js';
import { processRuns, processStartTicks } from '../io/private-temp.js';
import { nameNumber } from '@cordon/plugin-api';
import { readRegularFile, UnsafeReadError } from '../io/safe-read.js';
import { hostName } from '../util/legacy-binding.js';
import { isoTimestamp } from '../util/clock.js';
import { randomHex } from '../util/random.js';

/**
 * The repository lock (the BEKO2210/SkillQuarry cordon; docs/ARCHITECTURE.md "Data"): the file at
 * `git rev-parse --git-path cordon.lock` (per work tree), never waited on.
 *
 * Node has no `flock`, so the lock is a file that exists only while held ("Node
 * specifics"). It is created complete and exclusively: the owner record is written to a temp
 * file (created exclusively under an unpredictable name that carries the creator's pid) that is
 * then hard-linked to the lock path (`link` fails when the path exists), so a lock is whole
 * before anyone can see it. It is not fsynced: other processes see it through the page cache,
 * and syncing would only keep it whole across a crash of the machine, which its holder does not
 * survive; a lock that crash loses is free, and one it tears is taken over (below). The two disk
 * waits saved are 0.1–3 ms each on the development VM (`npm run bench:envelope`). The record
 * names the holder: `{pid, host, start, nonce, command, since}`, where `start` is the process's
 * boot id and start time on Linux (so a recycled pid is not mistaken for the holder).
 *
 * A lock whose holder is on this host and no longer runs (no such pid, or a pid with another
 * start time) is stale and is taken over: the stale file is renamed aside, the renamed file is
 * checked to be the very record judged stale (else it is put back), then removed, and the lock
 * is created as usual. A lock from another host is never taken over. Release removes the file
 * only while it still holds this process's nonce.
 *
 * A lock file that is a regular file but holds no owner record (empty or torn: a crash of an
 * older cordon, or of the disk, before its bytes were written) cannot be a live holder's, since
 * every lock is published whole: it is taken over by the same rename-aside protocol, checked to
 * still hold the very bytes judged unreadable. A lock path that is not a regular file (a
 * directory, FIFO, link) is never touched: the refusal names it and the way out.
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
  const record: LockRecord = { pid: process.pid, host: hostName(), start: processStart(process.pid), nonce: randomHex(12), command, since: isoTimestamp() };
  if (!tryCreate(path, record)) {
    const holder = inspect(path);
    if (holder.kind === 'free') {
      // Released between our attempt and the read: one more try.
      if (!tryCreate(path, record)) throw held(path, inspect(path));
    } else if (takeOverable(holder) && takeOver(path, holder)) {
      if (!tryCreate(path, record)) throw held(path, inspect(path));
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
      if (readLock(path)?.nonce === record.nonce) {
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
  const found = inspect(path);
  return found.kind === 'record' ? found.record : undefined;
}

/** What the lock path holds: nothing, an owner record, or something that is not one. */
export type LockState =
  | { readonly kind: 'free' }
  | { readonly kind: 'record'; readonly record: LockRecord; readonly bytes: Buffer }
  /** A regular file without a valid record (`bytes` as read), or a path that is not a regular file (`bytes` null). */
  | { readonly kind: 'unreadable'; readonly reason: string; readonly bytes: Buffer | null };

/** Largest lock file read; a record is about 200 bytes. */
const LOCK_MAX_BYTES = 64 * 1024;

/**
 * Reads the lock at `path` without following a link or blocking (`readRegularFile`), and says
 * what it holds (see {@link LockState}).
 */
export function inspectLock(path: string): LockState {
  return inspect(path);
}

function inspect(path: string): LockState {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(path, { maxBytes: LOCK_MAX_BYTES });
  } catch (error) {
    if (error instanceof UnsafeReadError) {
      if (error.reason === 'missing') return { kind: 'free' };
      if (error.reason === 'too-large') return { kind: 'unreadable', reason: `it is larger than a lock record (${LOCK_MAX_BYTES} bytes)`, bytes: null };
      return { kind: 'unreadable', reason: error.reason === 'symlink' ? 'it is a symbolic link' : 'it is not a regular file', bytes: null };
    }
    return { kind: 'unreadable', reason: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, bytes: null };
  }
  if (bytes.length === 0) return { kind: 'unreadable', reason: 'it is empty', bytes };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'unreadable', reason: 'it does not hold a lock record (not JSON)', bytes };
  }
  const r = parsed as Partial<LockRecord> | null;
  if (r === null || typeof r !== 'object' || !Number.isSafeInteger(r.pid) || r.pid! <= 0 || typeof r.nonce !== 'string' || typeof r.host !== 'string') {
    return { kind: 'unreadable', reason: 'it does not hold a lock record (no pid, host and nonce)', bytes };
  }
  const record: LockRecord = {
    pid: r.pid!,
    host: r.host,
    start: typeof r.start === 'string' ? r.start : null,
    nonce: r.nonce,
    command: typeof r.command === 'string' ? r.command : 'unknown',
    since: typeof r.since === 'string' ? r.since : 'unknown',
  };
  return { kind: 'record', record, bytes };
}

/** A stale record, or a regular file that holds no record (see the module comment). */
function takeOverable(state: LockState): state is Exclude<LockState, { kind: 'free' }> & { bytes: Buffer } {
  if (state.kind === 'record') return isStale(state.record);
  return state.kind === 'unreadable' && state.bytes !== null;
}

/**
 * True when `record`'s holder is certainly gone: same host, and its pid is not running or
 * runs with another start time. A holder on another host is never stale.
 */
export function isStale(record: LockRecord): boolean {
  if (record.host !== hostName()) return false;
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
  // `.cordon.lock.<pid>.<random>.tmp`: unpredictable, and the pid lets a later cordon remove
  // the temp file of a writer that was killed (cleanLockLeftovers).
  const temp = tempPathBeside(`${path}.${process.pid}`);
  try {
    const fd = openSync(temp, EXCLUSIVE_CREATE, 0o600);
    try {
      const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot create the lock ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    unlinkQuietly(temp);
  }
}

function takeOver(path: string, judged: { readonly bytes: Buffer }): boolean {
  const aside = `${path}.stale-${process.pid}-${randomHex(6)}`;
  try {
    renameSync(path, aside);
  } catch {
    return false; // someone else moved it first
  }
  let moved: Buffer | undefined;
  try {
    moved = readRegularFile(aside, { maxBytes: LOCK_MAX_BYTES });
  } catch {
    moved = undefined;
  }
  if (moved === undefined || !moved.equals(judged.bytes)) {
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

function held(path: string, holder: LockState): CordonError {
  if (holder.kind === 'unreadable') {
    return new CordonError(
      ERROR_CODES.LOCK_HELD,
      `the lock file ${path} cannot be used: ${holder.reason}. cordon did not touch it; if no cordon process works in this repository, remove it (rm ${JSON.stringify(path)}) and try again`,
      { details: { lock: path, holder: null, problem: holder.reason } },
    );
  }
  const record = holder.kind === 'record' ? holder.record : undefined;
  const who = record ? ` (${record.command}, pid ${record.pid} on ${record.host}, since ${record.since})` : '';
  return new CordonError(ERROR_CODES.LOCK_HELD, `another cordon process owns this repository${who}; lock file ${path}${record ? `; ${heldAdvice(record, path)}` : ''}`, { details: { lock: path, holder: record } });
}

/**
 * What the user can do about a live lock held by `record`: on this host, wait or stop the holder
 * (a lock whose process is gone is taken over, see {@link isStale}); on another host, which is
 * never taken over, wait or stop it there, then remove the lock file at `path` by hand.
 */
function heldAdvice(record: LockRecord, path: string): string {
  if (record.host === hostName()) return `wait for it to finish, or stop it (kill ${record.pid}); a lock whose process is gone is taken over on the next command`;
  return `it runs on host ${record.host}: wait for it to finish there, or stop it there; a lock from another host is never taken over, so once it has stopped remove the lock file (rm ${JSON.stringify(path)})`;
}

/**
 * Removes what killed lock takers left beside the lock at `path`: their temp files
 * (`.cordon.lock.<pid>.<random>.tmp`) and aside copies (`cordon.lock.stale-<pid>-<random>`),
 * only when that pid no longer runs. A pid not written as cordon writes one (`0`, `07`, past the
 * safe integers: the plugin API's `nameNumber`) makes the name no leftover of cordon's: it stays. Returns
 * the names removed. Never throws.
 */
export function cleanLockLeftovers(path: string): string[] {
  const dir = dirname(path);
  const name = basename(path);
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const entry of entries) {
    let pid: number | undefined;
    if (entry.startsWith(`.${name}.`) && entry.endsWith('.tmp')) {
      const m = /^([^.]+)\.[0-9a-f]{24}\.tmp$/.exec(entry.slice(name.length + 2));
      if (m) pid = nameNumber(m[1]!);
    } else if (entry.startsWith(`${name}.stale-`)) {
      const m = /^([^-]+)-[0-9a-f]{12}$/.exec(entry.slice(name.length + 7));
      if (m) pid = nameNumber(m[1]!);
    }
    if (pid === undefined || processRuns(pid, null)) continue;
    try {
      unlinkSync(join(dir, entry));
      removed.push(entry);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
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
  } catch {
    return null;
  }
  const ticks = processStartTicks(pid);
  return ticks === null ? null : `${bootId}:${ticks}`;
}
