import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitJsonLines } from '../../io/append.js';
import { sleepSync } from '../../util/sleep-sync.js';
import { SAMPLER_FILES } from './files.js';
import { isAlive } from './identity.js';
import { highestGeneration, readLockOwner, type LockOwner } from './lock.js';

/** A line of `sampler.jsonl` as its readers use it (run.ts `SamplerEvent` is what the sampler writes). */
export interface SamplerEventLine {
  event?: string;
  reason?: string;
  t?: number;
  pid?: number;
  generation?: number;
  /** `start`: when sampling was asked for (the wrapped command's spawn, the marker that started it), epoch ms. */
  since?: number;
  self_cpu_ms?: number;
  self_cpu_pct?: number;
}

/** Reads `sampler.jsonl` in `dir`, skipping lines that do not parse (io/append.ts `splitJsonLines`); empty when it is missing. */
export function readSamplerEvents(dir: string): SamplerEventLine[] {
  let text: string;
  try {
    text = readFileSync(join(dir, SAMPLER_FILES.events), 'utf8');
  } catch {
    return [];
  }
  return splitJsonLines(text, (value): value is SamplerEventLine => typeof value === 'object' && value !== null).values;
}

/**
 * The session's sampler while it still samples: the live owner of the highest lock generation in
 * `dir` that has written no `stop` event yet (a hook still spawning it counts: the sampler is on
 * its way). `undefined` when none runs: no lock, its owner gone (a killed sampler writes nothing
 * more), or its `stop` written. The calling process itself never counts (a `wrap` whose spawn
 * failed left its own pid in the lock). Reads one small lock file, one `/proc/<pid>/stat` and,
 * only while the owner lives, `sampler.jsonl`.
 */
export function liveSampler(dir: string): LockOwner | undefined {
  const generation = highestGeneration(dir);
  if (generation === 0) return undefined;
  const owner = readLockOwner(dir, generation);
  if (!owner || owner.pid === process.pid || !isAlive(owner)) return undefined;
  const stopped = readSamplerEvents(dir).some((e) => e.event === 'stop' && e.pid === owner.pid && (e.generation ?? generation) === generation);
  return stopped ? undefined : owner;
}

/** How a wait for a session's sampler ended: it `stopped` (its last samples and `stop` event written), `none` ran, or it still ran at the `timeout`. */
export type SamplerWait = 'stopped' | 'none' | 'timeout';

/** How often a waiter looks at the session's sampler again, ms. */
const POLL_MS = 20;

/**
 * Waits until the session's sampler in `dir` has stopped and written its last samples (its
 * `stop` event, or its process gone), at most `timeoutMs`. For a recorder that ended the session
 * and must not return before what it reports is complete (`cordon wrap`, after `STOP`). Never
 * throws; `none` when no sampler ran when called.
 */
export async function awaitSamplerStop(dir: string, timeoutMs: number): Promise<SamplerWait> {
  if (!liveSampler(dir)) return 'none';
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!liveSampler(dir)) return 'stopped';
  }
  return 'timeout';
}

/**
 * {@link awaitSamplerStop} for synchronous callers (`cordon reduce`, which has nothing else to do
 * meanwhile): blocks, looking every 20 ms. Never throws.
 */
export function awaitSamplerStopSync(dir: string, timeoutMs: number): SamplerWait {
  if (!liveSampler(dir)) return 'none';
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    sleepSync(POLL_MS);
    if (!liveSampler(dir)) return 'stopped';
  }
  return 'timeout';
}

/**
 * How long, at most, a reader of a session that has ended waits for its sampler's last samples,
 * ms: the sampler looks for `STOP` once a second, and a loaded machine stretches that.
 */
export const ENDED_SESSION_WAIT_MS = 3_000;

/**
 * Before a session is read (`cordon reduce`, `cordon analyze`): when it has ended (`STOP` is there:
 * the `session_end` hook or `wrap` wrote it) but its sampler still runs, waits for the sampler to
 * write its last samples, at most `timeoutMs`. A session that has not ended is not waited for (it is
 * read as live). Returns what the wait found; `none` when there was nothing to wait for. The hook
 * path never calls it. Never throws.
 */
export function settleEndedSession(dir: string, timeoutMs: number = ENDED_SESSION_WAIT_MS): SamplerWait {
  if (!existsSync(join(dir, SAMPLER_FILES.stop))) return 'none';
  return awaitSamplerStopSync(dir, timeoutMs);
}
