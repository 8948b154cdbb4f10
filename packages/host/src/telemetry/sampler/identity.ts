import { closeSync, openSync, readSync } from 'node:fs';
import { parseProcStat } from './linux/proc-stat.js';

/**
 * A process named so that a recycled pid is not mistaken for it: the pid plus, on Linux, its
 * `starttime` (field 22 of `/proc/<pid>/stat`, clock ticks after boot).
 */
export interface ProcessIdentity {
  readonly pid: number;
  /** Linux `starttime`; absent where `/proc` is not available. */
  readonly start?: number;
}

const buf = Buffer.allocUnsafe(4096);

/** Reads `starttime` of `pid` from `/proc`; `undefined` when the process is gone or there is no `/proc`. */
export function readStartTicks(pid: number): number | undefined {
  let fd = -1;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
    const n = readSync(fd, buf, 0, buf.length, 0);
    const stat = parseProcStat(buf, n);
    if (!stat || stat.state === 'Z' || stat.state === 'X') return undefined;
    return stat.startTicks;
  } catch {
    return undefined;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** The identity of a running process (`start` filled in on Linux), or `undefined` when it is gone. */
export function identify(pid: number): ProcessIdentity | undefined {
  if (process.platform === 'linux') {
    const start = readStartTicks(pid);
    return start === undefined ? undefined : { pid, start };
  }
  return isRunning(pid) ? { pid } : undefined;
}

/**
 * Whether `who` still runs. On Linux the pid must exist, not be a zombie, and have the recorded
 * `starttime`; elsewhere a signal-0 probe decides (EPERM means it exists under another user).
 */
export function isAlive(who: ProcessIdentity): boolean {
  if (!Number.isInteger(who.pid) || who.pid <= 0) return false;
  if (process.platform === 'linux' && who.start !== undefined) return readStartTicks(who.pid) === who.start;
  return isRunning(who.pid);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
