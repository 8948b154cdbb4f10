import { closeSync, existsSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { constants } from 'node:os';
import type { TreeReader, TreeReading } from '@cordon/plugin-api';
import { classifyOwnProcess, splitCmdline, type OwnProcess } from '../own-processes.js';
import { readKernelUnits, type KernelUnits } from './auxv.js';
import { emptyStat, parseLastPid, parseProcStat, type ProcStat } from './proc-stat.js';

/** One process of the measured tree. */
interface Member {
  readonly pid: number;
  /** Open `/proc/<pid>/stat` descriptor (re-read with pread), or -1 when none could be kept. */
  fd: number;
  /** utime + stime at the previous reading, clock ticks. */
  cpuTicks: number;
  /** cutime + cstime (its reaped children's CPU) at the previous reading, clock ticks. */
  childTicks: number;
  /**
   * Ticks of reaped members already counted (each one's last reading) that its `childTicks`
   * will show again: taken off its next child-CPU gain, so nothing counts twice.
   */
  credit: number;
  /** Its parent when it joined. */
  ppid: number;
  /** RSS at the previous reading, pages (counted as is on ticks that skip an idle member). */
  rssPages: number;
  /** Tick of its latest reading (a member is read at most once per tick). */
  readTick: number;
  /** When it was last read, and when a reading last showed its CPU or RSS change (performance.now ms). */
  readAt: number;
  changedAt: number;
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

/** A member's total CPU as last read: its own and its reaped children's, clock ticks. */
function totalTicks(member: Member): number {
  return member.cpuTicks + member.childTicks;
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
  /**
   * Most `/proc/<pid>/stat` descriptors kept open (default 4096, lowered to fit the open-files
   * limit, {@link fdBudget}); beyond it files are reopened per tick.
   */
  readonly maxOpenFds?: number;
  /** Full `/proc` listing at least this often, ms (default {@link FULL_SCAN_MS}): the safety net behind pid probing. */
  readonly fullScanMs?: number;
  /** New pids probed one by one up to this many per tick (default {@link MAX_PROBES}); more and `/proc` is listed. */
  readonly maxProbes?: number;
  /**
   * A member whose CPU and RSS have not changed for this long is idle and re-read only this often,
   * ms (default {@link IDLE_MS}; 0 reads every member on every tick). See the class comment.
   */
  readonly idleMs?: number;
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
 * Default of {@link ProcTreeReaderOptions.idleMs}: 0, every member read on every tick. Skipping
 * idle members (1 s was tried) made an idle process's exit show up to a second late, so
 * the memory of a tool process that held 300 MB and exited was attributed to the next call
 * (test/e2e/sampler/claude.test.ts caught it); per-call attribution comes before the syscalls saved.
 */
const IDLE_MS = 0;
/** Missing probed pids looked at once more on the next tick: the newest this many (see #probeNew). */
const RETRY_NEWEST = 4;
/**
 * Default of {@link ProcTreeOptions.fullScanMs}: 30 s. Probing alone finds every new process (the
 * class comment says how); the listing only backs it up against the unforeseen, and under foreign
 * churn one costs about 2 ms, a tenth of the sampler's budget at 5 s.
 */
const FULL_SCAN_MS = 30_000;

/**
 * `kill(pid, 0)` as Node's `process._kill` binding does it: 0 when the pid exists (a process or a
 * thread), a negative errno otherwise, and no exception either way. `process.kill` wraps it but
 * throws an Error for a missing pid, and `existsSync('/proc/<pid>')` walks procfs, which allocates
 * and frees a dentry for a missing pid: probing with kill took half the time of `existsSync` under
 * 60 foreign pids/s (bench:sampler). `_kill` is undocumented (a removal was proposed in
 * nodejs/node#31087 and dropped), so it is used only after answering as kill(2) does for this
 * process and for a pid above pid_max; otherwise `undefined` and probes use `existsSync`.
 */
function killProbe(pidMax: number): ((pid: number) => boolean) | undefined {
  const raw = (process as unknown as { _kill?: unknown })._kill;
  if (typeof raw !== 'function') return undefined;
  const kill = raw as (pid: number, signal: number) => unknown;
  const ESRCH = -constants.errno.ESRCH;
  try {
    if (kill.call(process, process.pid, 0) !== 0 || kill.call(process, pidMax + 1, 0) !== ESRCH) return undefined;
  } catch {
    return undefined;
  }
  // EPERM (another user's process) still means the pid exists.
  return (pid) => kill.call(process, pid, 0) !== ESRCH;
}

/**
 * Measures the process tree rooted at one pid by reading `/proc` directly
 * (no `ps`, no native addon).
 *
 * Every tree member's `/proc/<pid>/stat` stays open and is re-read with one `pread` (RSS and utime +
 * stime in one read). A kept descriptor is bound to the process, not the number, so a recycled pid
 * reads as gone (`ESRCH`), never as a stranger. Each read is a syscall, and syscalls are most of
 * the sampler's cost. With `idleMs` set (off by default: {@link IDLE_MS}), an **idle** member (CPU
 * and RSS unchanged for `idleMs`) is re-read only every `idleMs`; on the ticks between it counts
 * with its last RSS and no CPU, and the CPU it gains meanwhile is counted at its next read (nothing
 * is lost, it shows up to `idleMs` late). Its exit likewise shows up to `idleMs` late, which
 * misattributes its memory to the next call. The root is read on every tick. Before an
 * idle member decides anything (a new process names it as parent, or a new orphan is in its
 * process group) or the pid counter hands its number out again, it is read first, so a dead member
 * never vouches for a stranger nor hides one.
 *
 * Finding new members cheaply: `/proc/loadavg` names the last pid allocated. When it has not moved,
 * no process was created and nothing else is read. When it moved by at most {@link MAX_PROBES},
 * just those pids are probed (a thread's tid comes from the same counter; its `exit_signal` of -1
 * tells it apart; a pid already gone is told by kill(pid, 0), see {@link killProbe}, which unlike
 * a failed open builds no error object and unlike a path lookup leaves procfs alone); otherwise,
 * and every `fullScanMs` (a safety net, 30 s by default), `/proc` is listed and pids not met
 * before are read once (only their `ppid` matters when they are outside the tree). Every pid the
 * counter handed out since the previous tick is probed, so a process that lives across a tick is
 * found at that tick; a pid allocated but not yet visible (fork in flight) is probed again on the
 * next tick. When `/proc` is not of this process's pid namespace, `/proc` is listed every tick.
 *
 * Membership is sticky: a process counts from the first tick it is seen as a descendant until it
 * exits, even when its parent exits first and it is re-parented (an orphaned background job a tool
 * call started stays attributed to the agent). A process born and gone between two ticks is not seen.
 *
 * Orphans met for the first time (`sh -c 'job &'` whose shell exited before any tick saw the job)
 * are **adopted** through their process group: a new process joins when it is in the process group
 * of a counted member, started after the root (never one of the root's ancestors, which may share
 * its start tick), and its parent is pid 1 or outside the root's
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
  readonly #idleMs: number;
  readonly #classify: ((argv: readonly string[]) => OwnProcess | undefined) | undefined;
  readonly #buf = Buffer.allocUnsafe(STAT_BUFFER);
  readonly #stat = emptyStat();
  readonly #members = new Map<number, Member>();
  /** Pids met outside the tree: pid → the tick a full listing last showed it. */
  readonly #others = new Map<number, number>();
  readonly #rootPid: number;
  readonly #pidMax: number;
  /** Whether a pid exists: kill(pid, 0) where {@link killProbe} allows, else `existsSync` of its stat. */
  readonly #exists: (pid: number) => boolean;
  #openFds = 0;
  /** Descriptors held by this tick's fresh pids, not yet kept or closed. */
  #freshFds = 0;
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
  /** The root's ancestors when the reader opened (pid → start time): never adopted, though one may share the root's start tick. */
  readonly #rootAncestors = new Map<number, number>();
  /** Probed pids that did not exist yet (allocated, not yet visible): probed once more. */
  #retry: number[] = [];
  /** Sums of the reading in progress (members may be read before the member pass, see #refresh). */
  #sumCpuTicks = 0;
  #sumRssPages = 0;
  #sumProcs = 0;
  #sumAdopted = 0;
  #partial = false;
  #rootAlive = true;
  /** The last {@link #readPath} failed for lack of a descriptor (EMFILE/ENFILE), not because the process is gone. */
  #noDescriptor = false;

  /**
   * Opens the root's stat file and takes the priming reading.
   * @throws Error with code `ESRCH` when `rootPid` is not a running process.
   */
  constructor(rootPid: number, options: ProcTreeOptions = {}) {
    this.#proc = options.procRoot ?? '/proc';
    this.#units = options.units ?? readKernelUnits();
    this.#exclude = new Set(options.exclude ?? [process.pid]);
    this.#maxFds = options.maxOpenFds ?? fdBudget();
    this.#fullScanMs = options.fullScanMs ?? FULL_SCAN_MS;
    this.#maxProbes = options.maxProbes ?? MAX_PROBES;
    this.#idleMs = options.idleMs ?? IDLE_MS;
    this.#classify = options.ownProcesses === false ? undefined : (options.ownProcesses ?? classifyOwnProcess);
    this.#rootPid = rootPid;
    this.#pidMax = readPidMax(this.#proc);
    // kill(2) sees the pids of this process's namespace; the probes may use it only when /proc does too.
    const ownNamespace = ownPidNamespace(this.#proc);
    this.#exists = (ownNamespace ? killProbe(this.#pidMax) : undefined) ?? ((pid) => existsSync(`${this.#proc}/${pid}/stat`));
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
    const now = performance.now();
    this.#members.set(rootPid, { pid: rootPid, fd: rootFd, cpuTicks: root.cpuTicks, childTicks: root.childTicks, credit: 0, ppid: root.ppid, rssPages: root.rssPages, readTick: 0, readAt: now, changedAt: now, joined: 0, zombie: false, own: undefined, cmdline: this.#classify ? this.#readCmdline(rootPid) : undefined, recheck: false, pgrp: root.pgrp, adopted: false });
    this.#groups.set(root.pgrp, 1);
    // (After every use of `root`: reading another stat file reuses its object.)
    for (let pid = root.ppid, n = 0; pid > 1 && n < 64; n++) {
      const stat = this.#readPath(pid);
      if (!stat) break;
      this.#rootAncestors.set(pid, stat.startTicks);
      pid = stat.ppid;
    }
    // `/proc/loadavg` names the last pid of the reader's namespace; a /proc of another namespace
    // (a container given the host's) names other numbers, so there every tick lists /proc instead.
    try {
      this.#loadavgFd = ownNamespace ? openSync(`${this.#proc}/loadavg`, 'r') : -1;
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
    this.#sumCpuTicks = 0;
    this.#sumRssPages = 0;
    this.#sumProcs = 0;
    this.#sumAdopted = 0;
    this.#partial = false;
    this.#rootAlive = true;
    let fresh: Fresh[];
    const moved = lastPid === undefined || previous === undefined ? Infinity : lastPid >= previous ? lastPid - previous : lastPid + this.#pidMax - previous;
    if (moved > this.#maxProbes || at - this.#lastFullScanAt >= this.#fullScanMs) {
      this.#lastFullScanAt = at;
      fresh = this.#scanAll(tick, at, previous, lastPid);
    } else {
      fresh = this.#probeNew(tick, at, previous!, moved);
    }

    // A fresh pid joins when its parent is a member; repeat for fresh grandchildren.
    let grew = fresh.length > 0;
    while (grew) {
      grew = false;
      for (const f of fresh) {
        if (f.fd === -2) continue;
        let parent = this.#members.get(f.stat.ppid);
        // An idle member not read this tick may have exited and its pid been reused: read it first.
        if (parent && parent.readTick !== tick && !this.#refresh(parent, tick, at)) parent = undefined;
        const adopted = !parent && this.#rootAncestors.get(f.pid) !== f.stat.startTicks && this.#orphanOfTree(f.stat, tick, at);
        if (!parent && !adopted) continue;
        const cmdline = parent?.own === 'subtree' || !this.#classify ? undefined : this.#readCmdline(f.pid);
        const own = parent?.own === 'subtree' ? 'subtree' : this.#ownKind(cmdline);
        // Still the parent's image (read between fork and exec): look again once it has exec'd.
        const recheck = !own && cmdline !== undefined && cmdline === parent?.cmdline;
        let fd = f.fd;
        if (fd >= 0) this.#freshFds--;
        if (fd >= 0 && this.#openFds >= this.#maxFds) {
          closeSync(fd);
          fd = -1;
        } else if (fd >= 0) {
          this.#openFds++;
        }
        const s = f.stat;
        this.#members.set(f.pid, { pid: f.pid, fd, cpuTicks: s.cpuTicks, childTicks: s.childTicks, credit: 0, ppid: s.ppid, rssPages: s.rssPages, readTick: tick, readAt: at, changedAt: at, joined: tick, zombie: s.state === 'Z', own, cmdline, recheck, pgrp: s.pgrp, adopted });
        this.#others.delete(f.pid);
        f.fd = -2; // consumed
        grew = true;
        if (own) continue;
        this.#groups.set(s.pgrp, (this.#groups.get(s.pgrp) ?? 0) + 1);
        if (adopted) this.#sumAdopted++;
        // All the CPU it used, its reaped children's included (a burst before it was seen is not lost).
        if (tick > 1) this.#sumCpuTicks += s.cpuTicks + s.childTicks;
        this.#sumRssPages += s.rssPages;
        this.#sumProcs++;
      }
    }
    for (const f of fresh) {
      if (f.fd === -2) continue;
      if (f.fd >= 0) {
        closeSync(f.fd);
        this.#freshFds--;
      }
      this.#others.set(f.pid, tick);
    }
    // Re-read every member not read yet this tick, but an idle one only once per idleMs.
    for (const member of this.#members.values()) {
      if (member.readTick === tick) continue;
      if (member.pid !== this.#rootPid && !member.recheck && at - member.changedAt >= this.#idleMs && at - member.readAt < this.#idleMs) {
        if (member.own) continue;
        // Idle and read less than idleMs ago: counted as last read, its CPU gain waits for its next read.
        if (member.adopted) this.#sumAdopted++;
        this.#sumRssPages += member.rssPages;
        this.#sumProcs++;
        continue;
      }
      this.#refresh(member, tick, at);
    }
    const elapsedS = (at - this.#lastAt) / 1000;
    const cpuPct = tick > 1 && elapsedS > 0 ? (this.#sumCpuTicks / this.#units.clockTicks / elapsedS) * 100 : 0;
    this.#lastAt = at;
    const reading: TreeReading = { rssBytes: this.#sumRssPages * this.#units.pageSize, cpuPct, nProcs: this.#sumProcs, partial: this.#partial, rootAlive: this.#rootAlive };
    return this.#sumAdopted > 0 ? { ...reading, adopted: this.#sumAdopted } : reading;
  }

  /**
   * Reads one member now and adds it to this tick's sums; drops it when it has exited. Returns
   * whether it is still a member (a zombie is: its final counters stay readable).
   */
  #refresh(member: Member, tick: number, at: number): boolean {
    const pid = member.pid;
    member.readTick = tick;
    this.#noDescriptor = false;
    let stat = member.fd >= 0 ? this.#readFd(member.fd) : this.#readPath(pid);
    if (stat && stat.childTicks > member.childTicks && this.#hasUnreadChild(pid, tick)) {
      // It reaped a child: the members among its children are read first (a reaped one drops and
      // credits its counted CPU to this member), then this member again (the stat buffer is shared).
      this.#refreshChildren(pid, tick, at);
      member.readTick = tick;
      stat = member.fd >= 0 ? this.#readFd(member.fd) : this.#readPath(pid);
    }
    if (!stat && this.#noDescriptor) {
      // Not readable for lack of a descriptor: still a member, counted as last read, the sample partial.
      this.#noDescriptor = false;
      if (member.own) return true;
      if (member.adopted) this.#sumAdopted++;
      this.#sumRssPages += member.rssPages;
      this.#sumProcs++;
      return true;
    }
    if (!stat) {
      // Exited and reaped since the previous reading: the CPU of its last interval is lost,
      // unless that reading already saw it as a zombie (final counters).
      if (!member.zombie && !member.own) this.#partial = true;
      this.#drop(pid, member);
      if (pid === this.#rootPid) this.#rootAlive = false;
      return false;
    }
    if (pid === this.#rootPid && (stat.state === 'Z' || stat.state === 'X')) this.#rootAlive = false;
    member.zombie = stat.state === 'Z';
    member.readAt = at;
    if (stat.cpuTicks !== member.cpuTicks || stat.rssPages !== member.rssPages) member.changedAt = at;
    if (member.recheck) {
      member.recheck = false;
      member.cmdline = this.#readCmdline(pid);
      member.own = this.#ownKind(member.cmdline);
      if (member.own) this.#leaveGroup(member.pgrp);
    }
    const gained = Math.max(0, stat.cpuTicks - member.cpuTicks);
    // Reaped children's CPU (cutime + cstime), less what was counted while they were members.
    // Children of the root and of Cordon's own processes are not counted this way: the root's
    // are the hook processes the agent starts, which are Cordon's cost, not the agent's.
    let childGain = Math.max(0, stat.childTicks - member.childTicks);
    const used = Math.min(member.credit, childGain);
    member.credit -= used;
    childGain -= used;
    member.cpuTicks = stat.cpuTicks;
    member.childTicks = stat.childTicks;
    member.rssPages = stat.rssPages;
    if (member.own) return true;
    if (member.adopted) this.#sumAdopted++;
    this.#sumRssPages += stat.rssPages;
    this.#sumCpuTicks += gained + (pid === this.#rootPid ? 0 : childGain);
    this.#sumProcs++;
    return true;
  }

  /** Closes every descriptor the reader holds. */
  close(): void {
    for (const member of [...this.#members.values()]) this.#drop(member.pid, member);
    if (this.#loadavgFd >= 0) closeSync(this.#loadavgFd);
    this.#loadavgFd = -1;
  }

  /**
   * Lists `/proc`; returns the pids not met before, plus those the pid counter reached since the
   * previous tick (their number may have been recycled), each with its stat read.
   */
  #scanAll(tick: number, at: number, previous: number | undefined, lastPid: number | undefined): Fresh[] {
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
      const member = this.#members.get(pid);
      // A member's pid the counter passed again was freed first: read the member (it will read as
      // gone, being bound to the old process) before the number is taken for a new process.
      if (member && !(recycled(pid) && member.readTick !== tick && !this.#refresh(member, tick, at))) continue;
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

  /**
   * Reads the pids allocated since the previous tick, and last tick's missing pids once more: a pid
   * is allocated before its process becomes visible in `/proc`, so one probed during its fork is
   * not there yet. Only the newest {@link RETRY_NEWEST} missing pids are kept for that: a fork
   * takes microseconds, so the one in flight when `/proc/loadavg` was read is among the last
   * allocated, while the older missing pids of a busy machine (short-lived processes, the bulk
   * under churn) are gone for good and checking each twice doubled the sampler's cost.
   */
  #probeNew(tick: number, at: number, previous: number, moved: number): Fresh[] {
    const fresh: Fresh[] = [];
    const retry = this.#retry;
    const missing: number[] = [];
    for (const pid of retry) if (!this.#members.has(pid)) this.#probe(pid, fresh, undefined);
    for (let i = 1; i <= moved; i++) {
      let pid = previous + i;
      if (pid > this.#pidMax) pid -= this.#pidMax;
      // The counter allocated this pid again, so a member holding it was freed first: an idle
      // member not read since is read now (and drops, its descriptor bound to the old process).
      const member = this.#members.get(pid);
      if (member && (member.readTick === tick || this.#refresh(member, tick, at))) continue;
      this.#probe(pid, fresh, missing);
    }
    this.#retry = missing.length > RETRY_NEWEST ? missing.slice(-RETRY_NEWEST) : missing;
    return fresh;
  }

  /** Probes one pid: adds it to `fresh` when it is a process not met before, or to `missing` when absent. */
  #probe(pid: number, fresh: Fresh[], missing: number[] | undefined): void {
    if (this.#exclude.has(pid)) return;
    const f = this.#openFresh(pid, true);
    if (f === null) return; // a thread
    if (f) fresh.push(f);
    else missing?.push(pid);
  }

  /**
   * Opens and reads a pid's stat; `undefined` when it does not exist, `null` for a thread. A probed pid
   * (`skipThreads`) is checked for existence first (with kill(pid, 0) where {@link killProbe} allows,
   * else `existsSync`): most probed pids under churn are already gone, and a failed open costs an
   * error object.
   */
  #openFresh(pid: number, skipThreads: boolean): Fresh | null | undefined {
    if (skipThreads && !this.#exists(pid)) return undefined;
    const path = `${this.#proc}/${pid}/stat`;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      // Out of descriptors: the process may exist and be the tree's, so the sample is partial,
      // and the next tick lists /proc again to find it.
      if (outOfDescriptors(error)) {
        this.#partial = true;
        this.#lastFullScanAt = -Infinity;
      }
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
      return stat ? null : undefined;
    }
    // Within the descriptor budget the descriptor is kept for the member it may become; past it
    // (a listing meets every process of the machine) the stat is kept and the file closed.
    if (this.#openFds + this.#freshFds >= this.#maxFds) {
      closeSync(fd);
      return { pid, fd: -1, stat };
    }
    this.#freshFds++;
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
   * the root's session (a subreaper). See the class comment. The group's members not read this
   * tick are read first, so the group is judged by live members.
   */
  #orphanOfTree(stat: ProcStat, tick: number, at: number): boolean {
    if (!this.#groups.has(stat.pgrp) || stat.startTicks < this.#rootStart) return false;
    const pgrp = stat.pgrp;
    const ppid = stat.ppid;
    for (const member of this.#members.values()) if (member.pgrp === pgrp && !member.own && member.readTick !== tick) this.#refresh(member, tick, at);
    if (!this.#groups.has(pgrp)) return false;
    if (ppid === 1) return true;
    const parent = this.#readPath(ppid);
    return parent !== undefined && parent.session !== this.#rootSession;
  }

  /** Whether a member whose parent is `pid` has not been read this tick. */
  #hasUnreadChild(pid: number, tick: number): boolean {
    for (const m of this.#members.values()) if (m.ppid === pid && m.readTick !== tick && m.pid !== pid) return true;
    return false;
  }

  /** Reads (and counts) the members whose parent is `pid` that were not read this tick. */
  #refreshChildren(pid: number, tick: number, at: number): void {
    for (const m of [...this.#members.values()]) if (m.ppid === pid && m.readTick !== tick && m.pid !== pid) this.#refresh(m, tick, at);
  }

  #leaveGroup(pgrp: number): void {
    const left = (this.#groups.get(pgrp) ?? 1) - 1;
    if (left > 0) this.#groups.set(pgrp, left);
    else this.#groups.delete(pgrp);
  }

  #drop(pid: number, member: Member): void {
    if (!member.own) this.#leaveGroup(member.pgrp);
    // Its parent's cutime + cstime will show its whole CPU once it is reaped: what was counted
    // (a member), or what must not be (one of Cordon's own), is credited against that.
    const parent = this.#members.get(member.ppid);
    if (parent && parent !== member) parent.credit += totalTicks(member);
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
    this.#noDescriptor = false;
    try {
      fd = openSync(`${this.#proc}/${pid}/stat`, 'r');
      return this.#readFd(fd);
    } catch (error) {
      if (outOfDescriptors(error)) {
        this.#partial = true;
        this.#noDescriptor = true;
      }
      return undefined;
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }
}

/**
 * Whether the procfs at `proc` shows this process's pid namespace: its `self` link names
 * `process.pid` (proc(5)). False for a procfs of another namespace and for a directory that is not
 * procfs (tests' fake trees).
 */
function ownPidNamespace(proc: string): boolean {
  try {
    return readlinkSync(`${proc}/self`) === String(process.pid);
  } catch {
    return false;
  }
}

/** EMFILE (this process's limit) or ENFILE (the system's): a process could not be looked at. */
function outOfDescriptors(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
}

/** Descriptors left for everything but the kept stat files (samples, lock, log, loadavg, the one opened to probe a pid). */
const FD_RESERVE = 32;

/**
 * How many `/proc/<pid>/stat` descriptors the reader may keep: 4096, or fewer when this process's
 * open-files limit (`Max open files` soft limit in `/proc/self/limits`, proc(5)) leaves less,
 * minus {@link FD_RESERVE}. Members beyond it are read by path each tick, so under `ulimit -n 256`
 * every process is still counted (236 of 401 once were, silently).
 */
export function fdBudget(limitsPath = '/proc/self/limits'): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(readFileSync(limitsPath, 'utf8'));
    if (!m || m[1] === 'unlimited') return 4096;
    return Math.max(0, Math.min(4096, Number(m[1]) - FD_RESERVE));
  } catch {
    return 4096;
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
