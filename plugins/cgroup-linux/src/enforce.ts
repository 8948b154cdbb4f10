import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './sleep.js';
import type { EndedProcess, GuardEscalation, GuardRequest, GuardResult, GuardTier, Logger, TierName } from '@cordon/plugin-api';
import { findPlacement, type Placement } from './cgroup/detect.js';
import { callName, cleanupLeftovers, effectiveLimit, prepareContainer, removeSubtree, subtreeDeepestFirst, unpopulated } from './cgroup/domain.js';
import { parseKeyed, parseLimit, parsePressure, readText, words, writeValue } from './cgroup/files.js';
import { ThrottleMeter } from './throttle.js';

export { sustainedStall } from './throttle.js';

/** Backend name in results and records. */
export const BACKEND = 'cgroup-linux';

/**
 * The launcher the command starts through: it writes its own pid into the call's `cgroup.procs`
 * (passed as `$0`), reports on fd 3 that it joined, closes fd 3 and `exec`s the command, so every
 * instruction of the command runs inside the cgroup (kernel docs, admin-guide/cgroup-v2.rst: join at spawn, not later). A
 * failed join exits 253 without running the command. No native code.
 */
export const LAUNCHER = 'echo $$ 2>/dev/null >"$0" || exit 253; printf j >&3; exec 3>&- "$@"';

/** `memory.high` of `tier` over a RAM base, bytes; `null` = `max`. */
export function tierBytes(tier: GuardTier, ramBytes: number): number | null {
  return tier.ramFraction === null ? null : Math.floor(tier.ramFraction * ramBytes);
}

/** The next tier up the ladder, or `undefined` at the top. */
function nextTier(tiers: readonly GuardTier[], name: TierName): GuardTier | undefined {
  const i = tiers.findIndex((t) => t.name === name);
  return i >= 0 ? tiers[i + 1] : undefined;
}

let placementCache: Placement | undefined;

/** This process's placement, read once (the enforce tap asks on every call). */
export function placement(): Placement {
  placementCache ??= findPlacement();
  return placementCache;
}

/**
 * The `enforce` tap: runs the request's command in its own cgroup v2 under `<anchor>/cordon`,
 * the anchor being cordon's own (the agent's) cgroup (detect.ts; `placement` in the result says
 * which kind), with memory.high and cpu.weight of the tier, memory.oom.group=1, never memory.max.
 * Samples it every `stall.pollMs` (memory.current for the peak fallback, memory.pressure, or
 * memory.events where PSI cannot be read, for the stall policy (throttle.ts), cgroup.events for
 * freezes), raises memory.high one tier after a sustained stall, and after the command exits
 * reads memory.peak, memory.events, the PSI totals and cpu.stat, then removes the cgroup and any
 * sub-cgroups (thawing it, and ending what the command left running, named in `ended`, first).
 *
 * Returns `undefined` (cordon runs the command unguarded, in its own cgroup, so still under the
 * agent's limits) when this machine cannot enforce or the cgroup cannot be prepared; the reason
 * goes to the log.
 */
export async function enforce(request: GuardRequest, log: Logger): Promise<GuardResult | undefined> {
  const where = placement();
  if (where.reason || !where.anchor || !where.mounts.v2) {
    log.debug('cgroup-linux cannot enforce here', { reason: where.reason });
    return undefined;
  }
  const prepared = prepareContainer(where.anchor);
  if (!prepared.ok) {
    log.warn('cgroup-linux: cannot prepare the cgroup; the command runs unguarded', { reason: prepared.reason });
    return undefined;
  }
  const { container } = prepared;
  // Which placement the call got: the hierarchy's root, or the agent's own cgroup,
  // whose processes may first have been moved into cordon-leaf (the no-internal-process rule).
  const placementKind = where.anchorKind === 'root-cgroup' ? 'root-cgroup' : prepared.movedToLeaf ? 'agent-cgroup-leaf' : 'agent-cgroup';
  const leftovers = await cleanupLeftovers(container);
  if (leftovers.removed.length || leftovers.kept.length) log.info('cgroup-linux: leftover cgroups', { ...leftovers });

  const parentLimit = effectiveLimit(container, where.mounts.v2.mountPoint);
  const ramBytes = parentLimit !== null && parentLimit < request.ramBytes ? parentLimit : request.ramBytes;
  const tier = request.tiers.find((t) => t.name === request.tier) ?? request.tiers[0]!;
  const limitBytes = tierBytes(tier, ramBytes);
  const dir = join(container, callName());
  try {
    mkdirSync(dir);
  } catch (error) {
    log.warn('cgroup-linux: cannot create the call cgroup; the command runs unguarded', { dir, error: String(error) });
    return undefined;
  }
  const notes: string[] = [];
  const set = (file: string, value: string): void => {
    const error = writeValue(join(dir, file), value);
    if (error) {
      notes.push(`could not set ${file}=${value}: ${error}`);
      log.warn('cgroup-linux: write failed', { file: join(dir, file), value, error });
    }
  };
  set('memory.high', limitBytes === null ? 'max' : String(limitBytes));
  set('cpu.weight', String(request.cpuWeight));
  set('memory.oom.group', '1');
  notes.push(
    `cgroup ${dir} (${placementKind}): memory.high=${limitBytes === null ? 'max' : limitBytes} (memory:${tier.name} of ${mib(ramBytes)} MiB${parentLimit !== null && parentLimit < request.ramBytes ? ', the parent limit' : ''}), cpu.weight=${request.cpuWeight}, memory.oom.group=1`,
  );

  const started = performance.now();
  let child;
  try {
    child = await request.spawn({ prefix: ['/bin/sh', '-c', LAUNCHER, join(dir, 'cgroup.procs')], reportFd: true });
  } catch (error) {
    await teardown(dir, log);
    throw error;
  }
  const placementInfo = { kind: placementKind, anchor: where.anchor };

  // Sampling while the command runs.
  let peakCurrent = 0;
  let frozenCount = 0;
  let frozenMs = 0;
  let frozenSince: number | undefined;
  let current = tier;
  let highBytes = limitBytes;
  const escalations: GuardEscalation[] = [];
  const meter = new ThrottleMeter(1 + Math.ceil((request.stall.windowMs * 2) / request.stall.pollMs));
  const sample = (): void => {
    const now = performance.now();
    const cur = parseLimit(readText(join(dir, 'memory.current')));
    if (cur !== null && cur > peakCurrent) peakCurrent = cur;
    const frozen = /^frozen 1$/m.test(readText(join(dir, 'cgroup.events')) ?? '');
    if (frozen && frozenSince === undefined) {
      frozenSince = now;
      frozenCount++;
    } else if (!frozen && frozenSince !== undefined) {
      frozenMs += now - frozenSince;
      frozenSince = undefined;
    }
    if (frozen) {
      meter.skip(now);
      return;
    }
    const highEvents = parseKeyed(readText(join(dir, 'memory.events'))).high ?? 0;
    const fullUs = parsePressure(readText(join(dir, 'memory.pressure')))?.fullUs ?? null;
    meter.add({ atMs: now, fullUs, highEvents, currentBytes: cur, highBytes });
    const up = nextTier(request.tiers, current.name);
    if (up && meter.sustained(request.stall.windowMs, request.stall.fullFraction)) {
      const bytes = tierBytes(up, ramBytes);
      set('memory.high', bytes === null ? 'max' : String(bytes));
      escalations.push({ atMs: Math.round(now - started), from: current.name, to: up.name, limitBytes: bytes, cause: meter.source });
      log.info('cgroup-linux: sustained memory stall; memory.high raised one tier', { dir, from: current.name, to: up.name, bytes, cause: meter.source });
      current = up;
      highBytes = bytes;
      meter.restart();
    }
  };
  const timer = setInterval(sample, request.stall.pollMs);
  const [report, exit] = await Promise.all([child.report, child.exit]);
  clearInterval(timer);
  const ended = performance.now();
  sample();
  if (frozenSince !== undefined) frozenMs += ended - frozenSince;

  const peak = parseLimit(readText(join(dir, 'memory.peak')));
  const memoryPressure = parsePressure(readText(join(dir, 'memory.pressure')));
  const result = {
    backend: BACKEND,
    domain: dir,
    tier: tier.name,
    finalTier: current.name,
    limitBytes,
    ramBytes,
    cpuWeight: request.cpuWeight,
    peakBytes: peak ?? (peakCurrent || null),
    peakSource: peak !== null ? ('memory.peak' as const) : peakCurrent ? ('memory.current' as const) : null,
    events: parseKeyed(readText(join(dir, 'memory.events'))),
    memoryPressure,
    stallSource: memoryPressure !== null && meter.source === 'memory.pressure' ? ('memory.pressure' as const) : ('memory.events' as const),
    throttledMs: Math.round(meter.throttledMs),
    placement: placementInfo,
    cpuPressure: parsePressure(readText(join(dir, 'cpu.pressure'))),
    cpuStat: parseKeyed(readText(join(dir, 'cpu.stat'))),
    frozenCount,
    frozenMs: Math.round(frozenMs),
    escalations,
    wallMs: Math.round(ended - started),
  };
  const { removed, ended: leftRunning } = await teardown(dir, log);
  if (leftRunning.length) notes.push(`ended ${leftRunning.length} process${leftRunning.length > 1 ? 'es' : ''} the command left running (pid ${leftRunning.map((p) => p.pid).join(', ')})`);
  if (report !== 'j') {
    // The launcher could not join: the command did not run (kernel cgroup-v2.rst: join at spawn, never run outside).
    notes.push(`could not move the command into ${dir}; it did not run`);
    return { ...result, enforced: false, exitCode: 126, notes, removed, ended: leftRunning };
  }
  return { ...result, enforced: true, exitCode: exit.exitCode, ...(exit.signal ? { signal: exit.signal } : {}), notes, removed, ended: leftRunning };
}

/** Most characters of arguments kept per ended process, far past what the host shows (200). */
const ARGV_CHARS = 64 * 1024;

/**
 * The arguments of process `pid` as {@link EndedProcess.argv} holds them: from
 * `/proc/<pid>/cmdline` (NUL-separated), else `[<comm>]`, else `?`. Neither escaped nor
 * redacted here: the host does both on the whole argv before it cuts the line it shows.
 */
export function processArgv(pid: number): string[] {
  const args = (readText(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean);
  if (!args.length) {
    const comm = readText(`/proc/${pid}/comm`)?.trim();
    return [comm ? `[${comm}]` : '?'];
  }
  const kept: string[] = [];
  let left = ARGV_CHARS;
  for (const arg of args) {
    if (left <= 0) break;
    kept.push(arg.slice(0, left));
    left -= arg.length + 1;
  }
  return kept;
}

/** Every pid in `dir` and the cgroups below it. */
function subtreePids(dir: string): number[] {
  return [dir, ...subtreeDeepestFirst(dir)].flatMap((d) => words(readText(join(d, 'cgroup.procs'))).map(Number));
}

/**
 * Removes a call's cgroup once the command has exited: thaws it if frozen, names and kills what
 * the command left running anywhere in the subtree (`cgroup.kill`, which covers descendants,
 * else SIGKILL per pid before 5.14), waits up to 2 s for `populated 0`, then removes the
 * subtree deepest first (sub-cgroups the command made itself, e.g. a nested runtime). Returns
 * whether the directory is gone and the processes that were ended (pid and arguments).
 */
export async function teardown(dir: string, log: Logger): Promise<{ removed: boolean; ended: EndedProcess[] }> {
  if (/^frozen 1$/m.test(readText(join(dir, 'cgroup.events')) ?? '')) writeValue(join(dir, 'cgroup.freeze'), '0');
  const ended: EndedProcess[] = [];
  if (!unpopulated(dir)) {
    const pids = subtreePids(dir);
    for (const pid of pids) ended.push({ pid, argv: processArgv(pid) });
    if (writeValue(join(dir, 'cgroup.kill'), '1')) {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
    for (let waited = 0; waited < 2000 && !unpopulated(dir); waited += 10) await sleep(10);
    // Pids only: the host logs and records their command lines once redacted as argvs.
    if (ended.length) log.info('cgroup-linux: ended processes the command left running', { dir, pids: ended.map((p) => p.pid) });
  }
  const removed = await removeSubtree(dir);
  if (!removed) log.warn('cgroup-linux: could not remove the call cgroup; a later run removes it', { dir });
  return { removed, ended };
}

/**
 * Bytes as whole MiB (2^20 bytes), which every label beside it calls MiB. The seed computes the
 * same number but labels it MB (2.5 % of 16 GiB is "410 MB", which is 430 MB); cordon says MiB,
 * as `reduce` and `analyze` do.
 */
export function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}
