import type { TreeReader, TreeReading } from '@cordon/plugin-api';
import type { ProcessRecord } from './process-table.js';

/** Options of {@link WinTreeReader}. */
export interface WinTreeOptions {
  /** Reads the whole process table once (the NT call in production, recorded tables in tests). */
  readonly snapshot: () => readonly ProcessRecord[];
  /** Pids never counted nor followed (default: this process, so the sampler does not measure itself). */
  readonly exclude?: readonly number[];
  /** Monotonic clock in ms (default `performance.now`); CPU % divides by its deltas. */
  readonly now?: () => number;
}

/** One process of the measured tree. */
interface Member {
  /** `CreateTime` when it joined: the same pid with another creation time is another process. */
  createTime: bigint;
  /** User + kernel time at the previous reading, 100 ns units. */
  cpu100ns: number;
}

/**
 * Measures the process tree rooted at one pid from whole-table snapshots (one
 * `NtQuerySystemInformation` call per tick; uncoalesced/cordon: no `wmic`, no
 * PowerShell, no per-process handle).
 *
 * Windows keeps no live parent link: `InheritedFromUniqueProcessId` is the creator's pid at
 * creation, never updated, and pids are reused quickly. So a process joins when its recorded
 * parent is a member *and* it was created no earlier than that member (a child cannot predate
 * its parent), and the parent's pid does not now name a newer process that could be the real
 * creator. A member is the same process only while its pid shows the same `CreateTime`; a pid
 * with another creation time reads as the member gone (pid-reuse protection, as the Linux reader's
 * kept descriptors give).
 *
 * Membership is sticky, as on Linux: a process counts from the first tick it is seen as a
 * descendant until it exits, even after its parent exits. A process born and gone between two
 * ticks is not seen. Processes joining after the first reading count with all the CPU they used.
 *
 * Memory is `WorkingSetSize` summed over the tree (see the package README for why not private
 * bytes). CPU % is the tree's user + kernel time gained since the previous reading over the wall
 * time between the readings (100 = one core).
 *
 * Unlike Linux, Cordon's own `cordon hook` processes are not told apart (that needs each
 * process's command line, i.e. a handle per process); they are short-lived and counted.
 */
export class WinTreeReader implements TreeReader {
  readonly #snapshot: () => readonly ProcessRecord[];
  readonly #exclude: ReadonlySet<number>;
  readonly #now: () => number;
  readonly #members = new Map<number, Member>();
  readonly #rootPid: number;
  #rootAlive = true;
  #tick = 0;
  #lastAt = 0;

  /**
   * Finds the root in a first snapshot and takes the priming reading.
   * @throws Error with code `ESRCH` when `rootPid` is not in the process table.
   */
  constructor(rootPid: number, options: WinTreeOptions) {
    this.#snapshot = options.snapshot;
    this.#exclude = new Set(options.exclude ?? [process.pid]);
    this.#now = options.now ?? (() => performance.now());
    this.#rootPid = rootPid;
    const root = options.snapshot().find((p) => p.pid === rootPid);
    if (!root || rootPid === 0) throw Object.assign(new Error(`no running process with pid ${rootPid}`), { code: 'ESRCH' });
    this.#members.set(rootPid, { createTime: root.createTime, cpu100ns: root.cpu100ns });
    this.read(); // priming: CPU baselines; the result is dropped
  }

  /** Measures the tree now. See the class comment for what counts. */
  read(): TreeReading {
    const tick = ++this.#tick;
    const table = this.#snapshot();
    const at = this.#now();
    const byPid = new Map<number, ProcessRecord>();
    for (const p of table) byPid.set(p.pid, p);

    let bytes = 0;
    let cpu = 0;
    let nProcs = 0;
    let partial = false;
    // Who may still adopt: every member as of the previous tick (one that exited this tick can
    // have started a child we see now for the first time).
    const parents = new Map(this.#members);
    for (const [pid, member] of this.#members) {
      const now = byPid.get(pid);
      if (!now || now.createTime !== member.createTime) {
        // Exited since the previous reading: the CPU of its last interval is lost.
        partial = true;
        this.#members.delete(pid);
        if (pid === this.#rootPid) this.#rootAlive = false;
        continue;
      }
      bytes += now.workingSetBytes;
      cpu += Math.max(0, now.cpu100ns - member.cpu100ns);
      member.cpu100ns = now.cpu100ns;
      nProcs++;
    }
    // Newcomers: repeat so that a child and its grandchild first seen in the same table both join.
    let grew = true;
    while (grew) {
      grew = false;
      for (const p of table) {
        if (p.pid === 0 || this.#members.has(p.pid) || this.#exclude.has(p.pid)) continue;
        if (!this.#adopts(parents, byPid, p)) continue;
        const member = { createTime: p.createTime, cpu100ns: p.cpu100ns };
        this.#members.set(p.pid, member);
        parents.set(p.pid, member);
        grew = true;
        bytes += p.workingSetBytes;
        if (tick > 1) cpu += p.cpu100ns;
        nProcs++;
      }
    }
    const elapsedMs = at - this.#lastAt;
    // 100 ns units → ms is / 1e4; over elapsed ms, × 100 for percent.
    const cpuPct = tick > 1 && elapsedMs > 0 ? (cpu / 1e4 / elapsedMs) * 100 : 0;
    this.#lastAt = at;
    return { rssBytes: bytes, cpuPct, nProcs, partial, rootAlive: this.#rootAlive };
  }

  /** Nothing is held between ticks. */
  close(): void {
    this.#members.clear();
  }

  /** Whether `p`'s recorded parent is a member that created it (not a stranger reusing the pid). */
  #adopts(parents: ReadonlyMap<number, Member>, byPid: ReadonlyMap<number, ProcessRecord>, p: ProcessRecord): boolean {
    const parent = parents.get(p.ppid);
    if (!parent || p.createTime < parent.createTime) return false;
    // The pid now names a newer process (the member exited, its number was reused): a child
    // created after that newer process more likely belongs to it.
    const current = byPid.get(p.ppid);
    return !current || current.createTime === parent.createTime || p.createTime < current.createTime;
  }
}
