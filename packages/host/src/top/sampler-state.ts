import { readSamplerStatus } from '../telemetry/sampler/state.js';

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
 * A session's sampler as `cordon top` shows it, from the one reader of sampler state
 * (telemetry/sampler/state.ts `readSamplerStatus`: the lock files, bounded, the end of
 * `sampler.jsonl`, liveness from `/proc`). A sampler that wrote its `stop` is `stopped` even while
 * its process is still exiting, as `wrap` and `reduce` see it. Reads only: no lock is taken, no file
 * written, no signal sent.
 */
export function readSamplerView(dir: string): SamplerView {
  const { generation, owner, alive, stopped, last, root } = readSamplerStatus(dir);
  const lastPid = last?.pid !== undefined && Number.isSafeInteger(last.pid) ? last.pid : null;
  if (owner && alive && owner.role === 'sampler' && !stopped) return { state: 'running', pid: owner.pid, reason: null, root };
  if (owner && alive && owner.role === 'hook') return { state: 'starting', pid: null, reason: null, root };
  if (last?.event === 'stop') return { state: 'stopped', pid: lastPid, reason: typeof last.reason === 'string' ? last.reason : null, root };
  if (generation > 0 || last) return { state: 'died', pid: lastPid ?? owner?.pid ?? null, reason: null, root };
  return { state: 'none', pid: null, reason: null, root };
}
