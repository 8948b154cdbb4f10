import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import type { TreeReader, TreeReading } from '@cordon/plugin-api';
import { classifyOwnProcess, splitCmdline, type OwnProcess } from '../own-processes.js';
import { readKernelUnits, type KernelUnits } from './auxv.js';
import { emptyStat, parseLastPid, parseProcStat, type ProcStat } from './proc-stat.js';

/** One process of the measured tree. */
interface Member {
  /** Open `/proc/<pid>/stat` descriptor (re-read with pread), or -1 when none could be kept. */
  fd: number;
  /** utime + stime at the previous reading, clock ticks. */
  cpuTicks: number;
  /** Tick at which it joined (it is counted from its first read then, not re-read). */
  joined: number;
  /** Its last read showed a zombie: its final CPU is counted, so its disappearance loses nothing. */
  zombie: boolean;
  /** One of Cordon's own processes: tracked (so its children are recognised) but not counted. */
  own: OwnProcess | undefined;
  /** Raw `/proc/<pid>/cmdline` read when it joined (kept to spot a child read before its exec). */
  cmdline: string | undefined;
  /** Its command line equalled its parent's (forked, not yet exec'd): read it once more next tick. */
  recheck: boolean;
  /** Its process group when it joined (members' groups adopt orphans, see the class comment). */
  pgrp: number;
  /** Joined through its process group, its parent already gone: counted, attribution uncertain. */
  adopted: boolean;
}

/** A process met for the first time this tick. */
interface Fresh {
  pid: number;
  fd: number;
  stat: ProcStat;
}

/** Options of {@link ProcTreeReader}; tests point `procRoot` elsewhere. */
export interface ProcTreeOptions {
  /** Mount point of procfs (default `/proc`). */
  readonly procRoot?: string;
  /** Pids never counted (default: this process, so the sampler does not measure itself). */
  readonly exclude?: readonly number[];
  /** Kernel units; read from `/proc/self/auxv` when omitted. */
  readonly units?: KernelUnits;
  /** Most `/proc/<pid>/stat` descriptors kept open (default 4096); beyond it files are reopened per tick. */
  readonly maxOpenFds?: number;
  /** Full `/proc` listing at least this often, ms (default 5000): the safety net behind pid probing. */
  readonly fullScanMs?: number;
  /** New pids probed one by one up to this many per tick (default {@link MAX_PROBES}); more and `/proc` is listed. */
  readonly maxProbes?: number;
  /**
   * Tells Cordon's own processes from the agent's by command line (default
   * {@link classifyOwnProcess}); `false` counts everything.
   */
  readonly ownProcesses?: false | ((argv: readonly string[]) => OwnProcess | undefined);
}

// Bytes of a stat line: comm is at most 64 bytes (kernel threads), the 52 numeric fields < 1 KiB.
const STAT_BUFFER = 4096;
/** New pids probed one by one up to this many per tick; more and `/proc` is listed instead. */
const MAX_PROBES = 64;

/**
 * Measures the process tree rooted at one pid by reading `/proc` directly
 * (research/cordon-resource.md D.6: no `ps`, no native addon).
 *
 * Every tree member's `/proc/<pid>/stat` stays open and is re-read with one `pread` per tick (RSS
 * and utime + stime in one read). A kept descriptor is bound to the process, not the number, so a
 * recycled pid reads as gone (`ESRCH`), never as a stranger.
 *
 * Finding new members cheaply: `/proc/loadavg` names the last pid allocated. When it has not moved,
 * no process was created and nothing else is read. When it moved by at most {@link MAX_PROBES},
 * just those pids are probed (a thread's tid comes from the same counter; its `exit_signal` of -1
 * tells it apart); otherwise, and every `fullScanMs`, `/proc` is listed and pids not met before
 * are read once (only their `ppid` matters when they are outside the tree).
 *
 * Membership is sticky: a process counts from the first tick it is seen as a descendant until it
 * exits, even when its parent exits first and it is re-parented (an orphaned background job a tool
 * call started stays attributed to the agent). A process born and gone between two ticks is not seen.
 *
 * Orphans met for the first time (`sh -c 'job &'` whose shell exited before any tick saw the job)
 * are **adopted** through their process group: a new process joins when it is in the process group
 * of a counted member, started after the root, and its parent is pid 1 or outside the root's
 * session (the init or subreaper orphans are handed to). A process whose parent is a live process
 * of the root's session outside the tree (a pipeline sibling, a job the same script started) is
 * not adopted. Adopted processes are counted and reported in `adopted`, since their attribution
 * rests on the group, not on parentage; a job that left the group (`setsid`) is not seen.
 *
 * Cordon's own processes are not the agent's: a new member's `/proc/<pid>/cmdline` is read once,
 * when it joins, and a `cordon hook` process (with everything under it) or the wrap shell shim
 * (itself only) is kept out of the sums ({@link classifyOwnProcess}). A process read between its
 * fork and its exec still shows its parent's command line: then it is read once more at the
 * next tick (counted until then).
 *
 * CPU % is the tree's utime + stime gained since the previous reading over the wall time between
 * the readings (100 = one core). A process that appeared after the first reading counts with all
 * the CPU it has used, so a short burst is not lost to priming.
 */
export class ProcTreeReader implements TreeReader {
  readonly #proc: string;
  readonly #units: KernelUnits;
  readonly #exclude: ReadonlySet<number>;
  readonly #maxFds: number;
  readonly #fullScanMs: number;
  readonly #maxProbes: number;
  readonly #classify: ((argv: readonly string[]) => OwnProcess | undefined) | undefined;
  readonly #buf = Buffer.allocUnsafe(STAT_BUFFER);
  readonly #stat = emptyStat();
  readonly #members = new Map<number, Member>();
  /** Pids met outside the tree: pid → the tick a full listing last showed it. */
  readonly #others = new Map<number, number>();
  readonly #rootPid: number;
  readonly #pidMax: number;
  #openFds = 0;
  #tick = 0;
  #lastAt = 0;
  #lastFullScanAt = -Infinity;
  #loadavgFd = -1;
  #lastPid: number | undefined;
  /** Process groups of counted members: group id → how many members are in it. */
  readonly #groups = new Map<number, number>();
  /** The root's start time (clock ticks after boot) and session id. */
  #rootStart = 0;
  #rootSession = 0;
  /** Probed pids that did not exist yet (allocated, not yet visible): probed once more. */
  #retry: number[] = [];

  /**
   * Opens the root's stat file and takes the priming reading.
   * @throws Error with code `ESRCH` when `rootPid` is not a running process.
   */
  constructor(rootPid: number, options: ProcTreeOptions = {}) {
    this.#proc = options.procRoot ?? '/proc';
    this.#units = options.units ?? readKernelUnits();
    this.#exclude = new Set(options.exclude ?? [process.pid]);
    this.#maxFds = options.maxOpenFds ?? 4096;
    this.#fullScanMs = options.fullScanMs ?? 5000;
    this.#maxProbes = options.maxProbes ?? MAX_PROBES;
    this.#classify = options.ownProcesses === false ? undefined : (options.ownProcesses ?? classifyOwnProcess);
    this.#rootPid = rootPid;
    this.#pidMax = readPidMax(this.#proc);
    let rootFd: number;
    try {
      rootFd = openSync(`${this.#proc}/${rootPid}/stat`, 'r');
    } catch {
      throw Object.assign(new Error(`no running process with pid ${rootPid}`), { code: 'ESRCH' });
    }
    const root = this.#readFd(rootFd);
    if (!root || root.state === 'Z' || root.state === 'X') {
      closeSync(rootFd);
      throw Object.assign(new Error(`process ${rootPid} has exited`), { code: 'ESRCH' });
    }
    this.#openFds = 1;
    this.#rootStart = root.startTicks;
    this.#rootSession = root.session;
    this.#members.set(rootPid, { fd: rootFd, cpuTicks: root.cpuTicks, joined: 0, zombie: false, own: undefined, cmdline: this.#classify ? this.#readCmdline(rootPid) : undefined, recheck: false, pgrp: root.pgrp, adopted: false });
    this.#groups.set(root.pgrp, 1);
    try {
      this.#loadavgFd = openSync(`${this.#proc}/loadavg`, 'r');
    } catch {
      this.#loadavgFd = -1;
    }
    this.read(); // priming: CPU baselines; the result is dropped
  }

  /** Measures the tree now. See the class comment for what counts. */
  read(): TreeReading {
    const tick = ++this.#tick;
    const at = performance.now();
    const lastPid = this.#readLastPid();
    const previous = this.#lastPid;
    this.#lastPid = lastPid;
    let fresh: Fresh[];
    const moved = lastPid === undefined || previous === undefined ? Infinity : lastPid >= previous ? lastPid - previous : lastPid + this.#pidMax - previous;
    if (moved > this.#maxProbes || at - this.#lastFullScanAt >= this.#fullScanMs) {
      this.#lastFullScanAt = at;
      fresh = this.#scanAll(tick, previous, lastPid);
    } else {
      fresh = this.#probeNew(previous!, moved);
    }

    let rssPages = 0;
    let cpuTicks = 0;
    let nProcs = 0;
    let partial = false;
    let nAdopted = 0;
    // A fresh pid joins when its parent is a member; repeat for fresh grandchildren.
    let grew = fresh.length > 0;
    while (grew) {
      grew = false;
      for (const f of fresh) {
        if (f.fd === -2) continue;
        const parent = this.#members.get(f.stat.ppid);
        const adopted = !parent && this.#orphanOfTree(f.stat);
        if (!parent && !adopted) continue;
        const cmdline = parent?.own === 'subtree' || !this.#classify ? undefined : this.#readCmdline(f.pid);
        const own = parent?.own === 'subtree' ? 'subtree' : this.#ownKind(cmdline);
        // Still the parent's image (read between fork and exec): look again once it has exec'd.
        const recheck = !own && cmdline !== undefined && cmdline === parent?.cmdline;
        let fd = f.fd;
        if (this.#openFds >= this.#maxFds) {
          closeSync(fd);
          fd = -1;
        } else {
          this.#openFds++;
        }
        this.#members.set(f.pid, { fd, cpuTicks: f.stat.cpuTicks, joined: tick, zombie: f.stat.state === 'Z', own, cmdline, recheck, pgrp: f.stat.pgrp, adopted });
        this.#others.delete(f.pid);
        f.fd = -2; // consumed
        grew = true;
        if (own) continue;
        this.#groups.set(f.stat.pgrp, (this.#groups.get(f.stat.pgrp) ?? 0) + 1);
        if (adopted) nAdopted++;
        if (tick > 1) cpuTicks += f.stat.cpuTicks;
        rssPages += f.stat.rssPages;
        nProcs++;
      }
    }
    for (const f of fresh) {
      if (f.fd === -2) continue;
      closeSync(f.fd);
      this.#others.set(f.pid, tick);
    }
    // Re-read every member found before this tick.
    let rootAlive = true;
    for (const [pid, member] of this.#members) {
      if (member.joined === tick) continue;
      const stat = member.fd >= 0 ? this.#readFd(member.fd) : this.#readPath(pid);
      if (!stat) {
        // Exited and reaped since the previous reading: the CPU of its last interval is lost,
        // unless that reading already saw it as a zombie (final counters).
        if (!member.zombie && !member.own) partial = true;
        this.#drop(pid, member);
        if (pid === this.#rootPid) rootAlive = false;
        continue;
      }
      if (pid === this.#rootPid && (stat.state === 'Z' || stat.state === 'X')) rootAlive = false;
      member.zombie = stat.state === 'Z';
      if (member.recheck) {
        member.recheck = false;
        member.cmdline = this.#readCmdline(pid);
        member.own = this.#ownKind(member.cmdline);
        if (member.own) this.#leaveGroup(member.pgrp);
      }
      if (member.own) continue;
      if (member.adopted) nAdopted++;
      rssPages += stat.rssPages;
      cpuTicks += Math.max(0, stat.cpuTicks - member.cpuTicks);
      member.cpuTicks = stat.cpuTicks;
      nProcs++;
    }
    const elapsedS = (at - this.#lastAt) / 1000;
    const cpuPct = tick > 1 && elapsedS > 0 ? (cpuTicks / this.#units.clockTicks / elapsedS) * 100 : 0;
    this.#lastAt = at;
    return { rssBytes: rssPages * this.#units.pageSize, cpuPct, nProcs, partial, rootAlive, ...(nAdopted > 0 ? { adopted: nAdopted } : {}) };
  }

  /** Closes every descriptor the reader holds. */
  close(): void {
    for (const [pid, member] of this.#members) this.#drop(pid, member);
    if (this.#loadavgFd >= 0) closeSync(this.#loadavgFd);
    this.#loadavgFd = -1;
  }

  /**
   * Lists `/proc`; returns the pids not met before, plus those the pid counter reached since the
   * previous tick (their number may have been recycled), each with its stat read.
   */
  #scanAll(tick: number, previous: number | undefined, lastPid: number | undefined): Fresh[] {
    const fresh: Fresh[] = [];
    let names: string[];
    try {
      names = readdirSync(this.#proc);
    } catch {
      return fresh;
    }
    const recycled = (pid: number): boolean => previous !== undefined && lastPid !== undefined && (lastPid >= previous ? pid > previous && pid <= lastPid : pid > previous || pid <= lastPid);
    for (const name of names) {
      const c = name.charCodeAt(0);
      if (c < 0x30 || c > 0x39) continue;
      const pid = Number(name);
      if (this.#exclude.has(pid)) continue;
      if (this.#members.has(pid)) continue;
      // A pid met before outside the tree is skipped, unless the counter passed it since the
      // previous tick: then the number may name a new process.
      if (this.#others.has(pid) && !recycled(pid)) {
        this.#others.set(pid, tick);
        continue;
      }
      const f = this.#openFresh(pid, false);
      if (f) fresh.push(f);
    }
    for (const [pid, seen] of this.#others) if (seen !== tick) this.#others.delete(pid);
    this.#retry = [];
    return fresh;
  }

  /** Reads the pids allocated since the previous tick (and last tick's not-yet-visible ones). */
  #probeNew(previous: number, moved: number): Fresh[] {
    const fresh: Fresh[] = [];
    const retry = this.#retry;
    this.#retry = [];
    const probe = (pid: number, again: boolean): void => {
      if (this.#exclude.has(pid) || this.#members.has(pid)) return;
      const f = this.#openFresh(pid, true);
      if (f) fresh.push(f);
      else if (!again) this.#retry.push(pid);
    };
    for (const pid of retry) probe(pid, true);
    for (let i = 1; i <= moved; i++) {
      let pid = previous + i;
      if (pid > this.#pidMax) pid -= this.#pidMax;
      probe(pid, false);
    }
    return fresh;
  }

  /** Opens and reads a pid's stat; `undefined` when it does not exist or is a thread. */
  #openFresh(pid: number, skipThreads: boolean): Fresh | undefined {
    let fd: number;
    try {
      fd = openSync(`${this.#proc}/${pid}/stat`, 'r');
    } catch {
      return undefined;
    }
    let stat: ProcStat | undefined;
    try {
      const n = readSync(fd, this.#buf, 0, STAT_BUFFER, 0);
      stat = parseProcStat(this.#buf, n, emptyStat(), skipThreads);
    } catch {
      stat = undefined;
    }
    if (!stat || (skipThreads && stat.exitSignal === -1)) {
      closeSync(fd);
      return undefined;
    }
    return { pid, fd, stat };
  }

  /** A process's raw `/proc/<pid>/cmdline`; `undefined` when unreadable (e.g. gone). */
  #readCmdline(pid: number): string | undefined {
    try {
      return readFileSync(`${this.#proc}/${pid}/cmdline`, 'utf8');
    } catch {
      return undefined;
    }
  }

  /** Whether a raw command line is one of Cordon's own processes. */
  #ownKind(cmdline: string | undefined): OwnProcess | undefined {
    return this.#classify && cmdline !== undefined ? this.#classify(splitCmdline(cmdline)) : undefined;
  }

  /**
   * Whether a process whose parent is not a member is an orphan of the tree: in a counted
   * member's process group, started after the root, and handed to pid 1 or to a process outside
   * the root's session (a subreaper). See the class comment.
   */
  #orphanOfTree(stat: ProcStat): boolean {
    if (!this.#groups.has(stat.pgrp) || stat.startTicks < this.#rootStart) return false;
    if (stat.ppid === 1) return true;
    const parent = this.#readPath(stat.ppid);
    return parent !== undefined && parent.session !== this.#rootSession;
  }

  #leaveGroup(pgrp: number): void {
    const left = (this.#groups.get(pgrp) ?? 1) - 1;
    if (left > 0) this.#groups.set(pgrp, left);
    else this.#groups.delete(pgrp);
  }

  #drop(pid: number, member: Member): void {
    if (!member.own) this.#leaveGroup(member.pgrp);
    if (member.fd >= 0) {
      try {
        closeSync(member.fd);
      } catch {
        // Already closed.
      }
      this.#openFds--;
    }
    this.#members.delete(pid);
  }

  #readLastPid(): number | undefined {
    if (this.#loadavgFd < 0) return undefined;
    try {
      return parseLastPid(this.#buf, readSync(this.#loadavgFd, this.#buf, 0, 256, 0));
    } catch {
      return undefined;
    }
  }

  #readFd(fd: number): ProcStat | undefined {
    if (fd < 0) return undefined;
    try {
      const n = readSync(fd, this.#buf, 0, STAT_BUFFER, 0);
      return parseProcStat(this.#buf, n, this.#stat);
    } catch {
      return undefined; // ESRCH: the process has exited
    }
  }

  #readPath(pid: number): ProcStat | undefined {
    let fd = -1;
    try {
      fd = openSync(`${this.#proc}/${pid}/stat`, 'r');
      return this.#readFd(fd);
    } catch {
      return undefined;
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }
}

/** `/proc/sys/kernel/pid_max` (pids wrap to low numbers after it); 4194304 when unreadable. */
function readPidMax(proc: string): number {
  try {
    const n = Number(readFileSync(`${proc}/sys/kernel/pid_max`, 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : 4_194_304;
  } catch {
    return 4_194_304;
  }
}
