import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TreeReader, TreeReading } from '@cordon/plugin-api';
import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLER_FILES } from '../../../src/telemetry/sampler/files.js';
import { runSamplerLoop } from '../../../src/telemetry/sampler/loop.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sessionDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cordon-loop-'));
  dirs.push(d);
  return d;
}

const reading = (nProcs: number, rootAlive = true): TreeReading => ({ rssBytes: 1 << 20, cpuPct: 1, nProcs, partial: false, rootAlive });

/**
 * A reader answering from a script of steps: a number is a reading with that many processes,
 * 'throw' throws, 'dead' says the root is gone; `async` answers through a promise.
 */
function scripted(steps: Array<number | 'throw' | 'dead'>, async: boolean, onRead?: (n: number) => void): TreeReader {
  let i = 0;
  return {
    read() {
      const step = steps[Math.min(i, steps.length - 1)]!;
      i++;
      onRead?.(i);
      if (step === 'throw') {
        if (async) return Promise.reject(new Error('read failed'));
        throw new Error('read failed');
      }
      const r = step === 'dead' ? reading(0, false) : reading(step);
      return async ? Promise.resolve(r) : r;
    },
    close() {},
  };
}

const samples = (dir: string) => readFileSync(join(dir, SAMPLER_FILES.samples), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { n_procs: number });

describe('runSamplerLoop', () => {
  for (const async of [false, true]) {
    const kind = async ? 'a reader that answers through a promise' : 'a synchronous reader';
    it(`writes one sample per tick, counts a tick that throws, stops on the root’s exit (${kind})`, async () => {
      const dir = sessionDir();
      const { reason, stats } = await runSamplerLoop({ dir, reader: scripted([3, 'throw', 4, 'dead'], async), intervalMs: 20, idleMs: 60_000, generation: 1 });
      expect(reason).toBe('agent-exit');
      expect(stats).toMatchObject({ ticks: 2, errors: 1 });
      expect(samples(dir).map((s) => s.n_procs)).toEqual([3, 4]);
    });

    it(`stops at the first slow check after STOP appears (within a second), with every sample written (${kind})`, async () => {
      const dir = sessionDir();
      const reader = scripted([2], async, (n) => {
        if (n === 5) writeFileSync(join(dir, SAMPLER_FILES.stop), '');
      });
      const { reason, stats } = await runSamplerLoop({ dir, reader, intervalMs: 20, idleMs: 60_000, generation: 1 });
      expect(reason).toBe('stop-file');
      // Ticks 1–5 are before STOP; the slow check comes at most a second (50 ticks of 20 ms) later
      // (counted in ticks: a loaded machine only makes fewer of them fit in that second).
      expect(stats.ticks).toBeGreaterThan(5);
      expect(stats.ticks).toBeLessThanOrEqual(5 + 51);
      expect(samples(dir)).toHaveLength(stats.ticks);
    });
  }

  it('blocks between the ticks of a second for a synchronous reader, and leaves the event loop free for one that answers through a promise', async () => {
    const turns = async (async: boolean): Promise<{ turns: number; ticks: number; gaps: number }> => {
      const dir = sessionDir();
      let reads = 0;
      let turns = 0;
      // Which gaps between ticks (named by the reads before them) the other timer ran in.
      const gaps = new Set<number>();
      // A timer elsewhere in the process: it runs only when the loop gives the event loop a turn.
      const other = setInterval(() => {
        turns++;
        gaps.add(reads);
      }, 1);
      try {
        const { stats } = await runSamplerLoop({ dir, reader: scripted([1], async, (n) => (reads = n)), intervalMs: 20, idleMs: 60_000, generation: 1, stopRequested: () => reads >= 60 });
        return { turns, ticks: stats.ticks, gaps: gaps.size };
      } finally {
        clearInterval(other);
      }
    };
    // About 1.2 s of 20 ms ticks. Blocking, the 1 ms timer runs only during the two sleeps that go
    // through a timer (the first, and the one after the slow checks at 1 s): about 40 times.
    // Through promises it runs during every sleep: about 1,200 times on a quiet machine, and in
    // every gap between two ticks however busy the machine (a late wake-up runs the 1 ms timer
    // before the loop's own 20 ms one), which is what is counted.
    const blocking = await turns(false);
    expect(blocking.ticks).toBeGreaterThanOrEqual(59);
    expect(blocking.turns).toBeLessThan(150);
    expect(blocking.gaps).toBeLessThanOrEqual(5);
    const free = await turns(true);
    expect(free.gaps).toBeGreaterThanOrEqual(55);
  });

  it('stops on request before reading again', async () => {
    const dir = sessionDir();
    let reads = 0;
    const { reason, stats } = await runSamplerLoop({ dir, reader: scripted([1], false, (n) => (reads = n)), intervalMs: 20, idleMs: 60_000, generation: 1, stopRequested: () => reads >= 3 });
    expect(reason).toBe('signal');
    expect(stats.ticks).toBe(3);
  });
});
