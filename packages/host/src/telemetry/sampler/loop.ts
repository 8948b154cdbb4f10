import { closeSync, constants, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TreeReader, TreeReading } from '@cordon/plugin-api';
import { SAMPLER_FILES } from './files.js';
import { lockPath } from './lock.js';
import { OpenCalls } from './open-calls.js';
import { formatSample } from './sample.js';
import { sleepSync } from '../../util/sleep-sync.js';

/** Why a sampler stopped. */
export type StopReason =
  /** `STOP` appeared (session end, or `wrap` saw its child exit). */
  | 'stop-file'
  /** The root process exited (or was killed) without a session end. */
  | 'agent-exit'
  /** No marker for the idle timeout. */
  | 'idle'
  /** A newer lock generation exists: another sampler owns the session now. */
  | 'superseded'
  /** SIGTERM, SIGINT or SIGHUP. */
  | 'signal';

/** Input of {@link runSamplerLoop}. */
export interface SamplerLoopOptions {
  /** Session directory. */
  readonly dir: string;
  /** Opened tree reader (already primed). */
  readonly reader: TreeReader;
  /** Tick interval, ms. */
  readonly intervalMs: number;
  /** Idle timeout, ms: stop when `markers.jsonl` (or the start, if later) is older than this and no tool call is open. */
  readonly idleMs: number;
  /** This sampler's lock generation (it stops when generation + 1 appears). */
  readonly generation: number;
  /** Returns true to stop at the next tick (set by the signal handlers). */
  readonly stopRequested?: () => boolean;
}

/** Tick statistics reported in the `stop` event. Times in ms. */
export interface TickStats {
  readonly ticks: number;
  /** Ticks that threw (skipped, counted). */
  readonly errors: number;
  /** Ticks skipped because the process fell more than one interval behind (e.g. suspend). */
  readonly skipped: number;
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly maxMs: number;
}

/**
 * How often the slow checks run (`STOP`, a newer lock generation, the idle timeout), buffered
 * samples are written and the event loop gets a turn (signals), ms. At most this much is lost if
 * the sampler itself is killed, and `STOP` is noticed within it.
 */
const SLOW_CHECK_MS = 1000;
/** Tick durations kept for the median and p95 (a ring; older ticks fall out). */
const RING = 4096;

/**
 * Samples until a stop condition holds and returns why, with tick statistics.
 *
 * Ticks run on an absolute schedule, `start + n × interval` (uncoalesced/cordon), so
 * the rate does not drift with tick cost; a tick more than one interval late is skipped rather
 * than bunched. Each tick reads the tree and adds one line for `samples.jsonl`. Once a second
 * ({@link SLOW_CHECK_MS}) the lines are written through a descriptor held open and the slow checks
 * run; the loop stops then on `STOP`, when superseded or after the idle timeout (never while a tool
 * call is open), and at any tick on
 * the root's exit or on request. Never because a turn ended. A tick that throws is counted and
 * skipped.
 *
 * How it sleeps: between the ticks of one second the thread blocks in `Atomics.wait`, and only the
 * sleep after the slow checks goes through a timer, which gives the event loop its turn (signal
 * handlers set `stopRequested`). Waking is most of what an idle sampler costs on a virtual machine,
 * where each wake finds caches cold: an empty timer tick cost about 250 µs of CPU against 150 µs
 * for a futex wait, and the timer, immediate and microtask machinery was a quarter of the sampler's
 * profile under load (bench:sampler). A reader that answers through a promise needs the
 * event loop, so once one does, every sleep goes through a timer.
 */
export function runSamplerLoop(options: SamplerLoopOptions): Promise<{ reason: StopReason; stats: TickStats }> {
  const { dir, reader, intervalMs, idleMs, generation, stopRequested } = options;
  const stopPath = join(dir, SAMPLER_FILES.stop);
  const nextLock = lockPath(dir, generation + 1);
  const markersPath = join(dir, SAMPLER_FILES.markers);
  const openCalls = new OpenCalls(markersPath);
  /** Whether the thread may block between ticks: until a reader answers through a promise. */
  let block = true;
  return new Promise((resolve, reject) => {
    // Owner-only, never through a planted link: samples are the agent's resource use.
    const out = openSync(join(dir, SAMPLER_FILES.samples), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    const ring = new Float64Array(RING);
    let ticks = 0;
    let errors = 0;
    let skipped = 0;
    let maxMs = 0;
    const startedAt = Date.now();
    const origin = performance.now();
    let n = 0;
    let nextSlowCheck = origin + SLOW_CHECK_MS;
    /** The slow checks just ran: the next sleep goes through the event loop. */
    let yieldNext = true;
    let pending = '';

    const finish = (reason: StopReason | undefined, error?: unknown): false => {
      try {
        if (pending) writeSync(out, pending);
      } catch (e) {
        error ??= e;
      } finally {
        closeSync(out);
      }
      if (!reason) {
        reject(error);
        return false;
      }
      const kept = Array.from(ring.subarray(0, Math.min(ticks, RING))).sort((a, b) => a - b);
      const pick = (q: number): number => (kept.length ? kept[Math.min(kept.length - 1, Math.floor(q * kept.length))]! : 0);
      resolve({ reason, stats: { ticks, errors, skipped, medianMs: pick(0.5), p95Ms: pick(0.95), maxMs } });
      return false;
    };

    /** The next tick's due time (performance.now ms), past the ticks already missed. */
    const nextDue = (): number => {
      n++;
      let due = origin + n * intervalMs;
      const lag = performance.now() - due;
      if (lag > intervalMs) {
        const behind = Math.floor(lag / intervalMs);
        skipped += behind;
        n += behind;
        due = origin + n * intervalMs;
      }
      return due;
    };

    /** Hands the next tick to a timer. */
    const schedule = (): void => {
      const due = nextDue();
      yieldNext = false;
      setTimeout(run, Math.max(0, due - performance.now()));
    };

    // The end of a tick once the reading is in (or failed): the slow checks. False when the loop ended.
    const after = (t0: number, reading: TreeReading | undefined): boolean => {
      if (reading) {
        if (!reading.rootAlive) return finish('agent-exit');
        pending += formatSample(Date.now(), reading);
        const took = performance.now() - t0;
        ring[ticks % RING] = took;
        if (took > maxMs) maxMs = took;
        ticks++;
      }
      if (t0 >= nextSlowCheck) {
        nextSlowCheck = t0 + SLOW_CHECK_MS;
        yieldNext = true;
        if (pending) writeSync(out, pending);
        pending = '';
        if (existsSync(stopPath)) return finish('stop-file');
        if (existsSync(nextLock)) return finish('superseded');
        // A call still running is not idle, however long it writes no marker (OpenCalls).
        if (Date.now() - lastActivity(markersPath, startedAt) > idleMs && !openCalls.any()) return finish('idle');
      }
      return true;
    };

    /**
     * One tick. True when the next tick is for the caller to run; false when the loop ended or
     * the reading is still coming (a promise, which schedules the next tick itself).
     */
    const tick = (): boolean => {
      if (stopRequested?.()) return finish('signal');
      const t0 = performance.now();
      let reading: TreeReading | Promise<TreeReading> | undefined;
      try {
        reading = reader.read();
      } catch {
        errors++;
      }
      if (reading && 'then' in reading) {
        block = false;
        reading.then(
          (r) => guard(() => after(t0, r) && schedule()),
          () => guard(() => (errors++, after(t0, undefined) && schedule())),
        );
        return false;
      }
      return after(t0, reading);
    };

    /** Runs ticks, blocking between them, until a sleep is due on the event loop or the loop ends. */
    function run(): void {
      guard(() => {
        while (tick()) {
          if (!block || yieldNext) return schedule();
          sleepSync(nextDue() - performance.now());
        }
      });
    }

    // Anything thrown outside the reader (writing samples, the slow checks) ends the loop with it.
    const guard = (step: () => void): void => {
      try {
        step();
      } catch (error) {
        finish(undefined, error);
      }
    };

    schedule();
  });
}

/** When markers were last appended (epoch ms), or `startedAt` when later or when there are none yet. */
function lastActivity(markersPath: string, startedAt: number): number {
  try {
    // No exception for a session without markers yet: building one costs more than the stat.
    const stat = statSync(markersPath, { throwIfNoEntry: false });
    return stat ? Math.max(startedAt, stat.mtimeMs) : startedAt;
  } catch {
    return startedAt;
  }
}
