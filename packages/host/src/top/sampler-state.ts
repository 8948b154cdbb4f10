import { join } from 'node:path';
import { readRegularFile, readRegularFileWindow } from '../io/safe-read.js';
import { SAMPLER_FILES } from '../telemetry/sampler/files.js';
import { isAlive } from '../telemetry/sampler/identity.js';
import { highestGeneration, lockPath, type LockOwner } from '../telemetry/sampler/lock.js';
import { numberField, parseObject, stringField, windowLines } from './lines.js';

/** How much of the end of `sampler.jsonl` is read, bytes (a start or stop event is under 400 bytes). */
export const SAMPLER_EVENTS_TAIL_BYTES = 8 * 1024;

/** The largest lock file read, bytes (the sampler writes about 100). */
const LOCK_MAX_BYTES = 4096;

/**
 * Generation `generation`'s lock owner, read as `src/io` reads a file someone else may have
 * written (no link followed, regular files only, at most {@link LOCK_MAX_BYTES}); `undefined` when
 * missing, refused or not a lock.
 */
function readOwner(dir: string, generation: number): Pick<LockOwner, 'pid' | 'start' | 'role'> | undefined {
  try {
    const value = parseObject(readRegularFile(lockPath(dir, generation), { maxBytes: LOCK_MAX_BYTES }).toString('utf8'));
    const pid = numberField(value?.pid);
    const start = numberField(value?.start);
    const role = value?.role === 'sampler' || value?.role === 'hook' ? value.role : undefined;
    if (pid === undefined || !Number.isInteger(pid) || pid <= 0 || role === undefined) return undefined;
    return start === undefined ? { pid, role } : { pid, start, role };
  } catch {
    return undefined;
  }
}

/**
 * The state of a session's sampler:
 * - `running`: the holder of the newest lock generation is a live sampler process;
 * - `starting`: a hook holds it and is starting the sampler;
 * - `stopped`: the sampler wrote its `stop` event (`reason` says why: `idle`, `stop-file`, `signal`, …);
 * - `died`: it started and ended without a `stop` event (killed, crashed);
 * - `none`: no sampler was ever started for the session (`CORDON_SAMPLER=off`, no agent pid, a platform without one).
 */
export type SamplerState = 'running' | 'starting' | 'stopped' | 'died' | 'none';

/** What a session directory says about its sampler. */
export interface SamplerView {
  readonly state: SamplerState;
  /** The sampler's pid (running, or the last one seen). */
  readonly pid: number | null;
  /** `stopped`: the reason of its `stop` event. */
  readonly reason: string | null;
  /** The root of the tree it measures (its last `start` event), and when that was written (epoch ms). */
  readonly root: { readonly pid: number; readonly at: number } | null;
}

/**
 * Reads a session's sampler state from its lock files (`sampler.lock.<generation>`, a directory
 * listing and one small file, bounded) and the end of `sampler.jsonl`; liveness from `/proc` (pid and
 * start time, `isAlive`). Reads only: no lock is taken, no file written, no signal sent.
 */
export function readSamplerView(dir: string): SamplerView {
  const generation = highestGeneration(dir);
  const owner = generation > 0 ? readOwner(dir, generation) : undefined;
  const alive = owner !== undefined && isAlive(owner);
  let last: Record<string, unknown> | undefined;
  let root: SamplerView['root'] = null;
  try {
    const { lines } = windowLines(readRegularFileWindow(join(dir, SAMPLER_FILES.events), { maxBytes: SAMPLER_EVENTS_TAIL_BYTES }));
    for (const line of lines) {
      const event = parseObject(line);
      if (!event || (event.event !== 'start' && event.event !== 'stop')) continue;
      last = event;
      const pid = numberField(event.root_pid);
      const at = numberField(event.t);
      if (event.event === 'start' && pid !== undefined && at !== undefined) root = { pid, at };
    }
  } catch {
    // No events yet (the sampler writes its first after start-up), or unreadable.
  }
  const lastPid = numberField(last?.pid) ?? null;
  if (alive && owner.role === 'sampler') return { state: 'running', pid: owner.pid, reason: null, root };
  if (alive) return { state: 'starting', pid: null, reason: null, root };
  if (last?.event === 'stop') return { state: 'stopped', pid: lastPid, reason: stringField(last.reason) ?? null, root };
  if (generation > 0 || last) return { state: 'died', pid: lastPid ?? owner?.pid ?? null, reason: null, root };
  return { state: 'none', pid: null, reason: null, root };
}
