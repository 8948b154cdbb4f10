import { closeSync, constants, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TreeReader, TreeReading } from '@cordon/plugin-api';
import { SAMPLER_FILES } from './files.js';
import { lockPath } from './lock.js';
import { formatSample } from './sample.js';

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
  /** Idle timeout, ms: stop when `markers.jsonl` (or the start, if later) is older than this. */
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
 * How often the idle and superseded checks run and buffered samples are written, ms (STOP and the
 * root are checked every tick). Writing once a second instead of per tick halves the sampler's
 * fixed cost; at most this much is lost if the sampler itself is killed.
 */
const SLOW_CHECK_MS = 1000;
/** Tick durations kept for the median and p95 (a ring; older ticks fall out). */
const RING = 4096;

/**
 * Samples until a stop condition holds and returns why, with tick statistics.
 *
 * Ticks run on an absolute schedule, `start + n × interval` (research cordon-resource.md A.5), so
 * the rate does not drift with tick cost; a tick more than one interval late is skipped rather
 * than bunched. Each tick reads the tree and adds one line for `samples.jsonl`; lines are written
 * through a descriptor held open, once a second and at the stop. It stops on `STOP`, on the root's
 * exit, after the idle timeout, when superseded, or on request; never because a turn ended. A tick
 * that throws is counted and skipped.
 *
 * Each tick is a plain timer callback, and a reader that answers synchronously (the `/proc` one) is
 * not awaited: no promise or microtask per tick, since at 4 ticks a second the sampler's fixed
 * cost per wake-up is a good part of its budget (bench:sampler, issue 19). A reader that returns a
 * promise is waited for before the next tick is scheduled.
 */
export function runSamplerLoop(options: SamplerLoopOptions): Promise<{ reason: StopReason; stats: TickStats }> {
  const { dir, reader, intervalMs, idleMs, generation, stopRequested } = options;
  const stopPath = join(dir, SAMPLER_FILES.stop);
  const nextLock = lockPath(dir, generation + 1);
  const markersPath = join(dir, SAMPLER_FILES.markers);
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
    let pending = '';

    const finish = (reason: StopReason | undefined, error?: unknown): void => {
      try {
        if (pending) writeSync(out, pending);
      } catch (e) {
        error ??= e;
      } finally {
        closeSync(out);
      }
      if (!reason) return reject(error);
      const kept = Array.from(ring.subarray(0, Math.min(ticks, RING))).sort((a, b) => a - b);
      const pick = (q: number): number => (kept.length ? kept[Math.min(kept.length - 1, Math.floor(q * kept.length))]! : 0);
      resolve({ reason, stats: { ticks, errors, skipped, medianMs: pick(0.5), p95Ms: pick(0.95), maxMs } });
    };

    const schedule = (): void => {
      n++;
      let due = origin + n * intervalMs;
      const lag = performance.now() - due;
      if (lag > intervalMs) {
        const behind = Math.floor(lag / intervalMs);
        skipped += behind;
        n += behind;
        due = origin + n * intervalMs;
      }
      setTimeout(tick, Math.max(0, due - performance.now()));
    };

    // The end of a tick once the reading is in (or failed): the slow checks, then the next tick.
    const after = (t0: number, reading: TreeReading | undefined): void => {
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
        if (pending) writeSync(out, pending);
        pending = '';
        if (existsSync(nextLock)) return finish('superseded');
        if (Date.now() - lastActivity(markersPath, startedAt) > idleMs) return finish('idle');
      }
      schedule();
    };

    function tick(): void {
      guard(() => {
        if (stopRequested?.()) return finish('signal');
        if (existsSync(stopPath)) return finish('stop-file');
        const t0 = performance.now();
        let reading: TreeReading | Promise<TreeReading> | undefined;
        try {
          reading = reader.read();
        } catch {
          errors++;
        }
        if (reading && 'then' in reading) {
          reading.then(
            (r) => guard(() => after(t0, r)),
            () => guard(() => (errors++, after(t0, undefined))),
          );
          return;
        }
        after(t0, reading);
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

function lastActivity(markersPath: string, startedAt: number): number {
  try {
    return Math.max(startedAt, statSync(markersPath).mtimeMs);
  } catch {
    return startedAt;
  }
}
