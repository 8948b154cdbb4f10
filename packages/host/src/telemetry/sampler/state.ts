import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { splitJsonLines } from '../../io/append.js';
import { readRegularFileWindow } from '../../io/safe-read.js';
import { windowLines } from '../../io/window-lines.js';
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
  /** `start`: the root of the process tree sampled (the agent). */
  root_pid?: number;
  /** `start`: when sampling was asked for (the wrapped command's spawn, the marker that started it), epoch ms. */
  since?: number;
  self_cpu_ms?: number;
  self_cpu_pct?: number;
}

/** How much of the end of `sampler.jsonl` a status read takes, bytes (a start or stop event is under 400 bytes). */
export const SAMPLER_EVENTS_TAIL_BYTES = 8 * 1024;

/**
 * The most of `sampler.jsonl` a whole read takes, bytes: its last 16 MiB. The sampler writes a
 * few events per start and stop, so a session reaches this only if something else wrote the file.
 */
const SAMPLER_EVENTS_MAX_BYTES = 16 * 1024 * 1024;

const isEventLine = (value: unknown): value is SamplerEventLine => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The events of `sampler.jsonl` in `dir`, in file order: all of them, or with `tailBytes` those
 * whole lines that lie in its last `tailBytes` bytes. Read as a file someone else may have written
 * (io/safe-read.ts: no link followed, only a regular file, never blocking on a FIFO, at most
 * {@link SAMPLER_EVENTS_MAX_BYTES} from its end); lines that do not parse, a line cut by the
 * window and a last line without its newline are skipped (io/window-lines.ts, io/append.ts).
 * Empty when the file is missing or refused. Never throws.
 */
export function readSamplerEvents(dir: string, tailBytes: number = SAMPLER_EVENTS_MAX_BYTES): SamplerEventLine[] {
  let lines: string[];
  try {
    // Whole lines only (io/window-lines.ts): a line the window starts inside may even parse, as
    // the end of a longer line's JSON, and a last line without its newline is still being written.
    lines = windowLines(readRegularFileWindow(join(dir, SAMPLER_FILES.events), { maxBytes: Math.min(tailBytes, SAMPLER_EVENTS_MAX_BYTES) })).lines;
  } catch {
    return [];
  }
  return splitJsonLines(lines.join('\n'), isEventLine).values;
}

/** What a session directory says about its sampler: its newest lock and the end of its events, read once. */
export interface SamplerStatus {
  /** The highest lock generation in the directory; 0 when no sampler was ever started. */
  readonly generation: number;
  /** That generation's owner as its lock records it (lock.ts `readLockOwner`); `undefined` when missing or unreadable. */
  readonly owner: LockOwner | undefined;
  /** The owner's process still runs (its pid with the same start time: identity.ts `isAlive`). */
  readonly alive: boolean;
  /** The owner wrote its `stop` event for this generation: it samples no more, though its process may still be exiting. */
  readonly stopped: boolean;
  /** The last `start` or `stop` event in the tail, whichever process wrote it. */
  readonly last: SamplerEventLine | undefined;
  /** The root of the tree sampled and when that was recorded (epoch ms), from the last `start` event in the tail. */
  readonly root: { readonly pid: number; readonly at: number } | null;
}

/**
 * The one reader of a session's sampler state ({@link liveSampler} for `wrap`, `reduce` and
 * `analyze`; top/sampler-state.ts for `cordon top`): the highest lock generation, its owner and
 * whether that process lives, and the last {@link SAMPLER_EVENTS_TAIL_BYTES} of `sampler.jsonl`.
 * Reads a directory listing, one small lock file, one `/proc/<pid>/stat` and at most 8 KiB of
 * events; writes nothing, sends no signal. Never throws.
 */
export function readSamplerStatus(dir: string): SamplerStatus {
  const generation = highestGeneration(dir);
  const owner = generation > 0 ? readLockOwner(dir, generation) : undefined;
  const alive = owner !== undefined && isAlive(owner);
  let last: SamplerEventLine | undefined;
  let root: SamplerStatus['root'] = null;
  let stopped = false;
  for (const event of readSamplerEvents(dir, SAMPLER_EVENTS_TAIL_BYTES)) {
    if (event.event !== 'start' && event.event !== 'stop') continue;
    last = event;
    if (event.event === 'start' && isCount(event.root_pid) && isFiniteNumber(event.t)) root = { pid: event.root_pid, at: event.t };
    // A stop event without a generation predates generations in events: it is the owner's if its pid is.
    if (event.event === 'stop' && owner !== undefined && event.pid === owner.pid && (event.generation ?? generation) === generation) stopped = true;
  }
  return { generation, owner, alive, stopped, last, root };
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * The session's sampler while it still samples: the live owner of the highest lock generation in
 * `dir` that has written no `stop` event yet (a hook still spawning it counts: the sampler is on
 * its way). `undefined` when none runs: no lock, its owner gone (a killed sampler writes nothing
 * more), or its `stop` written. The calling process itself never counts (a `wrap` whose spawn
 * failed left its own pid in the lock). One {@link readSamplerStatus}.
 */
export function liveSampler(dir: string): LockOwner | undefined {
  const status = readSamplerStatus(dir);
  if (!status.owner || status.owner.pid === process.pid || !status.alive || status.stopped) return undefined;
  return status.owner;
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
