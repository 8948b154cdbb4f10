import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes an attempt started, found through `/proc` (Linux), so that ending the attempt
 * ends all of them. The agent leads its own process group, but agents start tools in groups and
 * sessions of their own (Claude Code runs every Bash call under a fresh `setsid` bash), so a
 * group kill alone can orphan a tool that keeps editing the repository once the agent is gone
 * (docs/envelopes.md).
 *
 * Membership is sticky: every descendant of the root seen by a {@link ProcessTree.scan} stays a
 * member, identified by pid *and* start time, until it is gone, even after its parent dies and
 * it is re-parented. A process born and re-parented between two scans is not seen; callers scan
 * every {@link SCAN_INTERVAL_MS} while the agent runs and again before killing. On other
 * platforms the tree is empty and callers fall back to the process group.
 */

/** How often the attempt supervisor scans while the agent runs, ms. */
export const SCAN_INTERVAL_MS = 250;

/** One member: a process identified across pid reuse. */
export interface TreeMember {
  readonly pid: number;
  /** `/proc/<pid>/stat` field 5 `pgrp`. */
  readonly pgid: number;
  /** Field 22 `starttime`, clock ticks after boot. */
  readonly start: number;
}

interface Stat {
  readonly ppid: number;
  readonly pgid: number;
  readonly start: number;
  readonly state: string;
}

/** Parses `/proc/<pid>/stat` (proc(5)); `comm` may hold spaces and parentheses, so fields count from the last `)`. */
export function parseStat(text: string): Stat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state), so field n is f[n - 3].
  const ppid = Number(f[1]);
  const pgid = Number(f[2]);
  const start = Number(f[19]);
  if (!Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid) || !Number.isSafeInteger(start)) return undefined;
  return { state: f[0] ?? '', ppid, pgid, start };
}

function readStat(procRoot: string, pid: number): Stat | undefined {
  try {
    return parseStat(readFileSync(`${procRoot}/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The descendants of a root process, tracked as described in the module comment. */
export class ProcessTree {
  readonly #members = new Map<number, TreeMember>();

  /** @param root pid whose descendants are tracked (not the root itself). */
  constructor(
    readonly root: number,
    readonly procRoot = '/proc',
  ) {}

  /** True where `/proc` can be read (Linux). */
  get supported(): boolean {
    return process.platform === 'linux';
  }

  /** Lists `/proc` once: adds new descendants, drops members that are gone. Never throws. */
  scan(): void {
    if (!this.supported) return;
    let names: string[];
    try {
      names = readdirSync(this.procRoot);
    } catch {
      return;
    }
    const stats = new Map<number, Stat>();
    for (const name of names) {
      const pid = Number(name);
      if (!Number.isSafeInteger(pid) || pid <= 0) continue;
      const stat = readStat(this.procRoot, pid);
      if (stat) stats.set(pid, stat);
    }
    for (const [pid, member] of this.#members) {
      const now = stats.get(pid);
      if (!now || now.start !== member.start || now.state === 'Z' || now.state === 'X') this.#members.delete(pid);
    }
    const children = new Map<number, number[]>();
    for (const [pid, stat] of stats) {
      const list = children.get(stat.ppid);
      if (list) list.push(pid);
      else children.set(stat.ppid, [pid]);
    }
    // Walk down from the root and from every member (a re-parented member's children are still ours).
    const queue = [this.root, ...this.#members.keys()];
    const seen = new Set<number>(queue);
    while (queue.length) {
      const pid = queue.pop()!;
      for (const child of children.get(pid) ?? []) {
        if (seen.has(child)) continue;
        seen.add(child);
        const stat = stats.get(child)!;
        if (stat.state !== 'Z' && stat.state !== 'X') this.#members.set(child, { pid: child, pgid: stat.pgid, start: stat.start });
        queue.push(child);
      }
    }
  }

  /** Members still alive (not zombies), re-checked against their start time. */
  alive(): TreeMember[] {
    const out: TreeMember[] = [];
    for (const member of this.#members.values()) {
      const stat = readStat(this.procRoot, member.pid);
      if (stat && stat.start === member.start && stat.state !== 'Z' && stat.state !== 'X') out.push(member);
      else this.#members.delete(member.pid);
    }
    return out;
  }

  /** Forgets every member (after they were killed, or when a new phase starts). */
  clear(): void {
    this.#members.clear();
  }

  /**
   * Sends `signal` to every live member's process group when a member leads it (so tools in
   * their own sessions go too, never cordon's own group), and to each member itself; only to
   * the members `which` accepts, when given. Returns how many members were signalled.
   */
  signalAll(signal: NodeJS.Signals, which: (member: TreeMember) => boolean = () => true): number {
    const members = this.alive().filter(which);
    const leaders = new Set(members.map((m) => m.pid));
    const groups = new Set(members.map((m) => m.pgid).filter((g) => leaders.has(g) && g !== process.pid));
    for (const group of groups) send(-group, signal);
    for (const member of members) send(member.pid, signal);
    return members.length;
  }
}

function send(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // ESRCH: gone already; EPERM: not ours to signal.
  }
}
