import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readError, readFile, readText, words, type FileRead } from './files.js';

/**
 * How cgroups are mounted (kernel docs, admin-guide/cgroup-v2.rst): `v2` (unified: cgroup2 only), `hybrid` (cgroup2 beside
 * v1 hierarchies that hold controllers, e.g. systemd's `/sys/fs/cgroup/unified`), `v1` (legacy,
 * no cgroup2), `none`.
 */
export type MountKind = 'v2' | 'hybrid' | 'v1' | 'none';

/** One cgroup mount from `/proc/self/mountinfo`. */
export interface CgroupMount {
  readonly fstype: 'cgroup' | 'cgroup2';
  /** Where it is mounted. */
  readonly mountPoint: string;
  /** The mount's root inside the hierarchy (field 4; `/` unless bind-mounted or namespaced). */
  readonly root: string;
  /** v1 only: the controllers bound to it (from the super options), e.g. `['memory']`. */
  readonly controllers: readonly string[];
}

const V1_CONTROLLERS = new Set(['cpu', 'cpuacct', 'cpuset', 'memory', 'devices', 'freezer', 'net_cls', 'net_prio', 'blkio', 'perf_event', 'hugetlb', 'pids', 'rdma', 'misc']);

/** Undoes mountinfo's octal escapes (`\040` for a space). */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/**
 * Parses `/proc/self/mountinfo` (proc(5): `id parent major:minor root mountpoint options
 * [optional…] - fstype source superoptions`) and keeps the cgroup and cgroup2 mounts.
 */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const [fstype, , superOptions = ''] = line.slice(sep + 3).split(' ');
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue;
    const controllers = fstype === 'cgroup' ? superOptions.split(',').filter((o) => V1_CONTROLLERS.has(o)) : [];
    out.push({ fstype, root: unescape(left[3] ?? '/'), mountPoint: unescape(left[4] ?? ''), controllers });
  }
  return out;
}

/** What {@link classifyMounts} concludes. */
export interface MountSummary {
  readonly kind: MountKind;
  /** The cgroup2 mount cordon would use (the first one), if any. */
  readonly v2?: CgroupMount;
  /** Controllers bound to v1 hierarchies (they cannot be used through cgroup v2). */
  readonly v1Controllers: readonly string[];
}

/** Classifies a host's cgroup mounts (kernel docs, admin-guide/cgroup-v2.rst). A v1 mount without controllers (`name=systemd`) does not make a host hybrid. */
export function classifyMounts(mounts: readonly CgroupMount[]): MountSummary {
  const v2 = mounts.find((m) => m.fstype === 'cgroup2');
  const v1Controllers = [...new Set(mounts.filter((m) => m.fstype === 'cgroup').flatMap((m) => m.controllers))].sort();
  const kind: MountKind = v2 ? (v1Controllers.length ? 'hybrid' : 'v2') : mounts.length ? 'v1' : 'none';
  return { kind, ...(v2 ? { v2 } : {}), v1Controllers };
}

/** The cgroup v2 path of this process (`0::/path` in `/proc/self/cgroup`), or `undefined`. */
export function parseOwnCgroup(procSelfCgroup: string): string | undefined {
  const line = procSelfCgroup.split('\n').find((l) => l.startsWith('0::'));
  return line?.slice(3);
}

/** Where cordon creates its cgroups, and what stands in the way. */
export interface Placement {
  readonly mounts: MountSummary;
  /** The directory of this process's own cgroup, when it lies under the v2 mount. */
  readonly ownDir?: string;
  /**
   * The cgroup cordon manages (`<anchor>/cordon` holds the per-call children): cordon's own
   * cgroup, which is the agent's (cordon runs as the agent's child), or its parent when the own
   * cgroup is the `cordon-leaf` an earlier run moved the agent into. For a normal user it must be
   * delegated to them. `undefined` when there is none.
   */
  readonly anchor?: string;
  /**
   * What the anchor is: `root-cgroup` (cordon runs in the hierarchy's true root, which has no
   * limits and is exempt from the no-internal-process rule) or `agent-cgroup` (cordon's own
   * cgroup: per-call cgroups inherit every limit set on it and its ancestors).
   */
  readonly anchorKind?: 'root-cgroup' | 'agent-cgroup';
  /** Controllers the anchor offers (its `cgroup.controllers`). */
  readonly controllers: readonly string[];
  /** Why cordon cannot enforce here, or `undefined` when it can (pending the create test). */
  readonly reason?: string;
  /** What the user can do about {@link reason}. */
  readonly fix?: string;
}

/** Controllers a per-call cgroup needs. */
export const NEEDED = ['memory', 'cpu'] as const;

/** How to get a delegated subtree as a normal user (kernel docs, cgroup-v2.rst "Delegation"). */
export const DELEGATE_FIX = 'run the agent (or the command) under `systemd-run --user --scope -p Delegate=yes -- …`, or run cordon as root';

/** How to leave a hybrid setup. */
export const HYBRID_FIX = 'boot with systemd.unified_cgroup_hierarchy=1 (or cgroup_no_v1=all) to get pure cgroup v2';

/** Why a hybrid host cannot enforce: the controllers cordon needs are bound to v1. */
export function hybridReason(mountPoint: string, onV1: readonly string[], v2Controllers: readonly string[]): string {
  return `hybrid cgroup v1/v2: ${onV1.join(' and ')} ${onV1.length > 1 ? 'are' : 'is'} bound to cgroup v1; cgroup v2 at ${mountPoint} offers ${v2Controllers.join(' ') || 'no controllers'}`;
}

/**
 * Why `<dir>/cgroup.controllers` may not be read, with what to do about it; `undefined` when it
 * reads or is missing. `code` is the error of a read already made (default: read it now). EACCES/EPERM means this user (or a sandbox: a container, an LSM policy) may not look
 * at the cgroup tree, which no reboot changes.
 */
export function unreadableControllers(dir: string, code: string | undefined = readError(join(dir, 'cgroup.controllers'))): { reason: string; fix: string; code: string } | undefined {
  const file = join(dir, 'cgroup.controllers');
  if (code !== 'EACCES' && code !== 'EPERM') return undefined; // a missing file reads as no controllers, as before
  return { code, reason: `cannot read ${file}: ${code} (permission denied), so the controllers cgroup v2 offers here are unknown`, fix: `let this user read ${file} (in a container: mount the cgroup file system readable, e.g. --cgroupns=private with a delegated cgroup), or run cordon where it can` };
}

/** Paths of the kernel files read, so tests can point at a copy. */
export interface KernelPaths {
  readonly mountinfo: string;
  readonly selfCgroup: string;
}

const REAL: KernelPaths = { mountinfo: '/proc/self/mountinfo', selfCgroup: '/proc/self/cgroup' };

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** True when the cgroup directory `dir` is delegated to this user: owned by the euid, its `cgroup.procs` and `cgroup.subtree_control` writable. */
function delegated(dir: string, uid: number): boolean {
  try {
    return statSync(dir).uid === uid && writable(join(dir, 'cgroup.procs')) && writable(join(dir, 'cgroup.subtree_control'));
  } catch {
    return false;
  }
}

/** Name of the leaf cordon moves the anchor's processes into (domain.ts LEAF; repeated here to keep detect.ts free of domain.ts). */
const LEAF_NAME = 'cordon-leaf';

/**
 * True when `dir` is the true root of the cgroup hierarchy: it has no `cgroup.type`, a file that
 * exists on non-root cgroups only (cgroup-v2.rst "Core Interface Files"). The root of a cgroup
 * namespace or of a bind-mounted subtree is a non-root cgroup and has one.
 */
export function isHierarchyRoot(dir: string): boolean {
  return !existsSync(join(dir, 'cgroup.type')) && existsSync(join(dir, 'cgroup.procs'));
}

/**
 * Finds where cordon would create per-call cgroups on this machine and why it cannot (kernel
 * docs, cgroup-v2.rst: hybrid hosts, "Delegation"): the mount kind, the v2 mount, the own cgroup, the anchor and the controllers it
 * offers. The anchor is cordon's own cgroup, for root too, so every call stays under the limits
 * the agent runs with (AgentCgroup, arXiv 2602.09345 §5: tool calls are per-call children of
 * the agent's cgroup); a normal user needs it delegated. Reads files only; creates nothing.
 */
export function findPlacement(paths: KernelPaths = REAL, uid: number = process.geteuid?.() ?? -1): Placement {
  const mounts = classifyMounts(parseCgroupMounts(readText(paths.mountinfo) ?? ''));
  const base = { mounts, controllers: [] as string[] };
  if (!mounts.v2) {
    const reason = mounts.kind === 'v1' ? 'only cgroup v1 is mounted (legacy hierarchy); cordon enforces through cgroup v2' : 'no cgroup file system is mounted';
    return { ...base, reason, fix: 'boot with systemd.unified_cgroup_hierarchy=1 (or mount cgroup2 on /sys/fs/cgroup)' };
  }
  const { mountPoint, root } = mounts.v2;
  const own = parseOwnCgroup(readText(paths.selfCgroup) ?? '');
  let ownDir: string | undefined;
  if (own !== undefined && (root === '/' || own === root || own.startsWith(`${root}/`))) {
    ownDir = join(mountPoint, root === '/' ? own : own.slice(root.length)).replace(/(.)\/+$/, '$1');
  }
  let anchor: string | undefined;
  let anchorKind: Placement['anchorKind'];
  // The leaf an earlier run moved the agent into is not the agent's cgroup: its parent is.
  const agentDir = ownDir && basename(ownDir) === LEAF_NAME && ownDir !== mountPoint ? dirname(ownDir) : ownDir;
  if (agentDir && (uid === 0 || delegated(agentDir, uid))) {
    // A process may only move between cgroups it can write up to their common ancestor (the own
    // cgroup here), so a normal user needs exactly the own cgroup delegated.
    anchor = agentDir;
    anchorKind = isHierarchyRoot(agentDir) ? 'root-cgroup' : 'agent-cgroup';
  }
  // Each cgroup.controllers file is read once (the anchor is often the mount point itself).
  const reads = new Map<string, FileRead>();
  for (const dir of [mountPoint, ...(anchor ? [anchor] : [])]) if (!reads.has(dir)) reads.set(dir, readFile(join(dir, 'cgroup.controllers')));
  const rootControllers = words(reads.get(mountPoint)!.text);
  const controllers = anchor ? words(reads.get(anchor)!.text) : rootControllers;
  // A file that cannot be read says nothing about the controllers: name the error, not "none".
  for (const [dir, read] of reads) {
    const unreadable = unreadableControllers(dir, read.code);
    if (unreadable) return { ...base, ...(ownDir ? { ownDir } : {}), ...(anchor ? { anchor } : {}), controllers, reason: unreadable.reason, fix: unreadable.fix };
  }
  const missing = NEEDED.filter((c) => !controllers.includes(c));
  const result = { ...base, ...(ownDir ? { ownDir } : {}), ...(anchor ? { anchor, anchorKind } : {}), controllers };
  const onV1 = NEEDED.filter((c) => !rootControllers.includes(c) && mounts.v1Controllers.includes(c));
  if (mounts.kind === 'hybrid' && onV1.length) return { ...result, reason: hybridReason(mountPoint, onV1, rootControllers), fix: HYBRID_FIX };
  if (!anchor && !ownDir) return { ...result, reason: `cordon's own cgroup (${own ?? 'unknown'}) is not visible under the cgroup2 mount ${mountPoint}`, fix: 'mount cgroup2 so that it shows the process\'s own cgroup (in a container: its own cgroup namespace)' };
  if (!anchor) return { ...result, reason: `cordon's cgroup ${ownDir ?? '(unknown)'} is not delegated to this user (uid ${uid})`, fix: DELEGATE_FIX };
  if (missing.length) {
    return { ...result, reason: `the ${missing.join(' and ')} controller${missing.length > 1 ? 's are' : ' is'} not available in ${anchor} (cgroup.controllers: ${controllers.join(' ') || 'none'})`, fix: DELEGATE_FIX };
  }
  return result;
}
