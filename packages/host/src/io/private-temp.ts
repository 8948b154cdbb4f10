import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { systemTempDir } from '../util/legacy-binding.js';
import { NAME_NUMBER, nameNumber } from '@cordon/plugin-api';

/**
 * Start time of `pid` in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or null when
 * it cannot be read (no such process, not Linux). With the pid it names one process: a pid the
 * kernel reuses later has another start time.
 */
export function processStartTicks(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Counted after the parenthesised command name, which may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * True when the process `pid` that started at `ticks` ({@link processStartTicks}; null = not
 * known) still runs. A pid that runs under another user (EPERM) counts as running. A zombie (it
 * exited and nobody reaped it yet: an orphan under an init that does not reap) does not run.
 */
export function processRuns(pid: number, ticks: string | null): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (processState(pid) === 'Z') return false;
  if (ticks === null) return true;
  const now = processStartTicks(pid);
  return now === null || now === ticks;
}

/**
 * True when process group `pgid` has a member that runs (zombies do not count). Linux reads
 * `/proc`; elsewhere `kill(-pgid, 0)` answers.
 */
export function processGroupRuns(pgid: number): boolean {
  if (!Number.isSafeInteger(pgid) || pgid <= 0) return false;
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return false;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the parenthesised name: state, ppid, pgrp.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    } catch {
      // Gone meanwhile.
    }
  }
  return false;
}

/** The one-letter state of `pid` from `/proc/<pid>/stat` (`R`, `S`, `Z`, …), or null off Linux or when unreadable. */
function processState(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

/**
 * Creates a private scratch directory `<tmp>/<prefix><pid>-<start ticks>-XXXXXX` (0700, as
 * `mkdtemp` makes it). The name carries its owner so {@link cleanPrivateTempDirs} can tell a
 * killed owner's leftover from a live one's. The caller removes it when done.
 */
export function privateTempDir(prefix: string, base = systemTempDir()): string {
  return mkdtempSync(join(base, `${prefix}${process.pid}-${processStartTicks(process.pid) ?? 0}-`));
}

/**
 * Removes `<tmp>/<prefix><pid>-<ticks>-XXXXXX` directories ({@link privateTempDir}) whose owner
 * no longer runs, for each of `prefixes`: only real directories (not links) owned by this user,
 * only names of exactly that shape (pid and ticks written as cordon writes them: no leading zero,
 * a pid within the safe integers; `07` or `0` is another's name, left alone). A killed `check` leaves its private git directory (with a
 * hard link to the index) behind; the next run removes it. The temp directory is listed once
 * however many prefixes are asked for (a shared `/tmp` can hold thousands of entries). Returns
 * the names removed; never throws.
 */
export function cleanPrivateTempDirs(prefixes: string | readonly string[], base = systemTempDir()): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(base);
  } catch {
    return removed;
  }
  // Pid and start ticks as privateTempDir writes them: no leading zero (a start of 0 = not known).
  const shape = new RegExp(`^(${NAME_NUMBER})-(0|${NAME_NUMBER})-[A-Za-z0-9]{6}$`);
  const wanted = typeof prefixes === 'string' ? [prefixes] : prefixes;
  for (const name of entries) {
    const prefix = wanted.find((p) => name.startsWith(p));
    if (prefix === undefined) continue;
    const m = shape.exec(name.slice(prefix.length));
    if (!m) continue;
    const pid = nameNumber(m[1]!);
    if (pid === undefined || processRuns(pid, m[2] === '0' ? null : m[2]!)) continue;
    const path = join(base, name);
    try {
      const stat = lstatSync(path);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.()) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Removed by someone else meanwhile, or not ours.
    }
  }
  return removed;
}
