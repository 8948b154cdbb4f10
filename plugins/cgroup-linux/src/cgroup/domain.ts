import { mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { sleep } from '../sleep.js';
import { dirname, join } from 'node:path';
import { NAME_NUMBER, nameNumber } from '@cordon/plugin-api';
import { NEEDED } from './detect.js';
import { parseLimit, readText, words, writeValue } from './files.js';

/** Name of the cgroup under the anchor that holds cordon's per-call cgroups. */
export const CONTAINER = 'cordon';
/** Leaf that receives the anchor's own processes when controllers must be enabled there (no-internal-process rule, kernel docs, admin-guide/cgroup-v2.rst). */
export const LEAF = 'cordon-leaf';

/**
 * A prepared container, or why it could not be prepared. `movedToLeaf`: the anchor's own
 * processes were moved into `<anchor>/cordon-leaf` first (no-internal-process rule).
 */
export type Prepared = { ok: true; container: string; movedToLeaf: boolean } | { ok: false; reason: string };

function enable(dir: string, wanted: readonly string[]): string | undefined {
  const have = words(readText(join(dir, 'cgroup.subtree_control')));
  const missing = wanted.filter((c) => !have.includes(c));
  if (missing.length === 0) return undefined;
  // One write with every missing controller: the kernel applies it all or nothing.
  return writeValue(join(dir, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
}

/**
 * Makes `<anchor>/cordon` ready for per-call children: `+memory +cpu` in the anchor's and the
 * container's `cgroup.subtree_control` (only the missing ones are written). When the anchor holds
 * processes and is not the root (EBUSY: the no-internal-process rule), they are first moved into
 * `<anchor>/cordon-leaf`, which is what a delegated `systemd-run --user --scope -p Delegate=yes`
 * scope needs. Idempotent; safe to run from several processes at once.
 */
export function prepareContainer(anchor: string): Prepared {
  let error = enable(anchor, NEEDED);
  let movedToLeaf = false;
  // A process may fork into the anchor between the move and the write: a few rounds.
  for (let round = 0; error === 'EBUSY' && round < 3; round++) {
    const leaf = join(anchor, LEAF);
    try {
      mkdirSync(leaf, { recursive: true });
    } catch (e) {
      return { ok: false, reason: `cannot create ${leaf}: ${(e as NodeJS.ErrnoException).code}` };
    }
    for (const pid of words(readText(join(anchor, 'cgroup.procs')))) writeValue(join(leaf, 'cgroup.procs'), pid);
    movedToLeaf = true;
    error = enable(anchor, NEEDED);
  }
  if (error) return { ok: false, reason: `cannot enable ${NEEDED.join(' and ')} in ${anchor}/cgroup.subtree_control: ${error}` };
  const container = join(anchor, CONTAINER);
  try {
    mkdirSync(container, { recursive: true });
  } catch (e) {
    return { ok: false, reason: `cannot create ${container}: ${(e as NodeJS.ErrnoException).code}` };
  }
  error = enable(container, NEEDED);
  if (error) return { ok: false, reason: `cannot enable ${NEEDED.join(' and ')} in ${container}/cgroup.subtree_control: ${error}` };
  return { ok: true, container, movedToLeaf };
}

/** Start time of process `pid` in clock ticks since boot (`/proc/<pid>/stat` field 22), or `undefined` when it is gone. */
export function processStart(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** Name of a per-call cgroup: `run-<cordon pid>-<its start time>-<random>`, so leftovers can be tied to a dead owner. */
export function callName(pid: number = process.pid): string {
  return `run-${pid}-${processStart(pid) ?? 0}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * A per-call cgroup's name as {@link callName} writes it: pid and start ticks as `String()` spells
 * them (the plugin API's `NAME_NUMBER`; a start of 0 = not known), so `run-07-…` or `run-0-…` is
 * no call's.
 */
const CALL = new RegExp(`^run-(${NAME_NUMBER})-(0|${NAME_NUMBER})-[a-z0-9]+$`);

/** True when the owner named in a per-call cgroup's name no longer runs (no such pid, or the pid started at another time). */
export function ownerGone(name: string): boolean {
  const m = CALL.exec(name);
  if (!m) return false;
  const pid = nameNumber(m[1]!);
  return pid !== undefined && processStart(pid) !== m[2];
}

/** True when the cgroup `dir` has no live process in it or below (`cgroup.events` populated 0). */
export function unpopulated(dir: string): boolean {
  return /^populated 0$/m.test(readText(join(dir, 'cgroup.events')) ?? '');
}

/**
 * The cgroups below `dir` (not `dir` itself), deepest first: children before their parent, so
 * `rmdir` in this order can remove the whole subtree (cgroup-v2.rst: a cgroup with children
 * cannot be removed). Only directories count (a cgroup's interface files are files).
 */
export function subtreeDeepestFirst(dir: string): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const child = join(dir, e.name);
    out.push(...subtreeDeepestFirst(child), child);
  }
  return out;
}

/**
 * Removes `dir` and every cgroup below it, deepest first, retrying each `rmdir` for up to
 * `retryMs` (a cgroup whose last process just exited can report EBUSY for a moment). Returns
 * whether `dir` is gone. Kills nothing: call it on an unpopulated subtree.
 */
export async function removeSubtree(dir: string, retryMs = 1000): Promise<boolean> {
  for (const d of [...subtreeDeepestFirst(dir), dir]) {
    for (let waited = 0; ; waited += 50) {
      try {
        rmdirSync(d);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        if (waited >= retryMs) return false;
        await sleep(50);
      }
    }
  }
  return true;
}

/**
 * Removes per-call cgroups under `container` whose cordon process is gone (SIGKILLed before its
 * teardown) and that are empty, with any cgroups the command made below them (deepest first). A
 * leftover that still holds processes anywhere in its subtree is left alone (they run on; a
 * later run removes it once they have exited) and returned in `kept`.
 */
export async function cleanupLeftovers(container: string): Promise<{ removed: string[]; kept: string[] }> {
  const removed: string[] = [];
  const kept: string[] = [];
  let names: string[];
  try {
    names = readdirSync(container);
  } catch {
    return { removed, kept };
  }
  for (const name of names) {
    if (!CALL.test(name) || !ownerGone(name)) continue;
    const dir = join(container, name);
    if (!unpopulated(dir)) {
      kept.push(dir);
      continue;
    }
    if (await removeSubtree(dir, 0)) removed.push(dir);
    else kept.push(dir);
  }
  return { removed, kept };
}

/**
 * The lowest `memory.max` or `memory.high` set on `dir` or any ancestor up to and including the
 * mount point `top`, in bytes; `null` when none is set. A per-call cgroup can never use more than
 * this, so tiers are fractions of it when it is below MemTotal. The mount point counts: in a
 * container with its own cgroup namespace, or with a bind-mounted subtree, it is the container's
 * cgroup and carries the container's limit (the true root cgroup has no `memory.max`,
 * cgroup-v2.rst "Memory Interface Files": non-root only). Ancestors above the mount cannot be
 * read from inside and are not counted.
 */
export function effectiveLimit(dir: string, top: string): number | null {
  let low: number | null = null;
  for (let d = dir; d === top || d.startsWith(`${top === '/' ? '' : top}/`); d = dirname(d)) {
    for (const file of ['memory.max', 'memory.high']) {
      const v = parseLimit(readText(join(d, file)));
      if (v !== null && (low === null || v < low)) low = v;
    }
    if (d === top) break;
  }
  return low;
}
