import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProcessRecord } from '../src/process-table.js';
import { WinTreeReader } from '../src/tree.js';

const MiB = 1024 * 1024;
/** 100 ns units per ms. */
const MS = 10_000;

/** A process as the table shows it; createTime is in "ticks" (any increasing number). */
function proc(pid: number, ppid: number, created: number, cpuMs = 0, wsMiB = 10): ProcessRecord {
  return { pid, ppid, createTime: BigInt(created), cpu100ns: cpuMs * MS, workingSetBytes: wsMiB * MiB, privateBytes: wsMiB * MiB };
}

/** A reader over a scripted sequence of tables, one per snapshot, and a clock advancing 1000 ms per reading. */
function scripted(rootPid: number, tables: ProcessRecord[][], exclude: number[] = [9999]): { reader: WinTreeReader; left: () => number } {
  let i = 0;
  let t = 0;
  const reader = new WinTreeReader(rootPid, {
    snapshot: () => tables[Math.min(i++, tables.length - 1)]!,
    now: () => (t += 1000),
    exclude,
  });
  return { reader, left: () => tables.length - i };
}

const system = [proc(0, 0, 0), proc(4, 0, 1, 5000, 1), proc(500, 4, 2, 100, 20)];

describe('WinTreeReader', () => {
  it('throws ESRCH when the root is not in the table', () => {
    expect(() => new WinTreeReader(42, { snapshot: () => system, exclude: [] })).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(() => new WinTreeReader(0, { snapshot: () => system, exclude: [] })).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('sums the working set of the root and its descendants, not of strangers', () => {
    // Constructor: one snapshot to find the root and one for the priming reading.
    const t = [...system, proc(100, 500, 10, 0, 50), proc(101, 100, 11, 0, 30), proc(102, 101, 12, 0, 5), proc(200, 500, 13, 0, 70)];
    const { reader } = scripted(100, [t, t, t]);
    const r = reader.read();
    expect(r).toEqual({ rssBytes: 85 * MiB, cpuPct: 0, nProcs: 3, partial: false, rootAlive: true });
  });

  it('adopts a child and its grandchild first seen in the same table, listed before their parents', () => {
    const t0 = [...system, proc(100, 500, 10, 0, 50)];
    const t1 = [proc(102, 101, 12, 0, 5), proc(101, 100, 11, 0, 30), ...t0];
    const { reader } = scripted(100, [t0, t0, t1]);
    expect(reader.read()).toMatchObject({ rssBytes: 85 * MiB, nProcs: 3 });
  });

  it('CPU % of one core from user + kernel deltas over the wall time between readings', () => {
    const at = (cpuRoot: number, cpuChild: number) => [...system, proc(100, 500, 10, cpuRoot), proc(101, 100, 11, cpuChild)];
    // Priming at cpu 1000/2000; then +500 ms and +1000 ms over 1000 ms: 150 %.
    const { reader } = scripted(100, [at(1000, 2000), at(1000, 2000), at(1500, 3000), at(1500, 3000)]);
    expect(reader.read().cpuPct).toBeCloseTo(150, 6);
    expect(reader.read().cpuPct).toBe(0);
  });

  it('a process joining after the first reading counts with all its CPU, one at the priming reading does not', () => {
    const t0 = [...system, proc(100, 500, 10, 0), proc(101, 100, 11, 400)];
    const t1 = [...t0, proc(102, 100, 12, 250)];
    const { reader } = scripted(100, [t0, t0, t1]);
    expect(reader.read().cpuPct).toBeCloseTo(25, 6);
  });

  it('keeps an orphan whose parent exited (sticky membership) and marks the reading partial', () => {
    const t0 = [...system, proc(100, 500, 10), proc(101, 100, 11), proc(102, 101, 12, 0, 40)];
    const t1 = [...system, proc(100, 500, 10), proc(102, 101, 12, 0, 40)];
    const { reader } = scripted(100, [t0, t0, t1, t1]);
    expect(reader.read()).toMatchObject({ nProcs: 2, partial: true, rssBytes: 50 * MiB });
    expect(reader.read()).toMatchObject({ nProcs: 2, partial: false });
  });

  it('adopts a child of a member that exited in the same interval', () => {
    const t0 = [...system, proc(100, 500, 10), proc(101, 100, 11)];
    const t1 = [...system, proc(100, 500, 10), proc(103, 101, 13, 0, 7)];
    const { reader } = scripted(100, [t0, t0, t1]);
    expect(reader.read()).toMatchObject({ nProcs: 2, partial: true, rssBytes: 17 * MiB });
  });

  it('a reused pid is another process: the member reads as gone, the newcomer is not adopted by pid alone', () => {
    const t0 = [...system, proc(100, 500, 10), proc(101, 100, 11, 300, 40)];
    // 101 exited; a stranger (parent 500) now has pid 101 with a later creation time.
    const t1 = [...system, proc(100, 500, 10), proc(101, 500, 20, 5, 90)];
    const { reader } = scripted(100, [t0, t0, t1]);
    expect(reader.read()).toEqual({ rssBytes: 10 * MiB, cpuPct: 0, nProcs: 1, partial: true, rootAlive: true });
  });

  it('a child whose recorded parent pid was reused by a member is not adopted when it predates that member', () => {
    // 300's creator (old pid 101) is long gone; pid 101 is now the root's child, created after 300.
    const t = [...system, proc(100, 500, 10), proc(101, 100, 30), proc(300, 101, 20, 0, 99)];
    const { reader } = scripted(100, [t, t, t]);
    expect(reader.read()).toMatchObject({ nProcs: 2, rssBytes: 20 * MiB });
  });

  it('a child created after the member pid was reused by a stranger belongs to the stranger', () => {
    const t0 = [...system, proc(100, 500, 10), proc(101, 100, 11)];
    const t1 = [...system, proc(100, 500, 10), proc(101, 500, 20), proc(102, 101, 21, 0, 66)];
    const { reader } = scripted(100, [t0, t0, t1]);
    expect(reader.read()).toMatchObject({ nProcs: 1, rssBytes: 10 * MiB, partial: true });
  });

  it('rootAlive turns false when the root exits, or its pid names another process', () => {
    const t0 = [...system, proc(100, 500, 10), proc(101, 100, 11)];
    const gone = [...system, proc(101, 100, 11)];
    const reused = [...system, proc(100, 4, 50), proc(101, 100, 11)];
    expect(scripted(100, [t0, t0, gone]).reader.read()).toMatchObject({ rootAlive: false, nProcs: 1, partial: true });
    expect(scripted(100, [t0, t0, reused]).reader.read()).toMatchObject({ rootAlive: false, nProcs: 1 });
  });

  it('never counts or follows excluded pids (the sampler itself)', () => {
    const t = [...system, proc(100, 500, 10), proc(9999, 100, 11, 0, 60), proc(10000, 9999, 12, 0, 60)];
    const { reader } = scripted(100, [t, t, t], [9999]);
    expect(reader.read()).toMatchObject({ nProcs: 1, rssBytes: 10 * MiB });
  });

  it('property: the reading equals a from-scratch walk of a static random tree', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(30), fc.integer({ min: 1, max: 500 })), { minLength: 1, maxLength: 30 }), (spec) => {
        // Process i+1000 has parent spec[i][0] mapped onto an earlier process (or 500, outside).
        const procs = spec.map(([p, ws], i) => proc(i + 1000, i === 0 ? 500 : p % 3 === 0 ? 500 : 1000 + (p % i), i + 10, 0, ws));
        const t = [...system, ...procs];
        const expected = new Set([1000]);
        for (const q of procs) if (expected.has(q.ppid)) expected.add(q.pid);
        const bytes = procs.filter((q) => expected.has(q.pid)).reduce((a, q) => a + q.workingSetBytes, 0);
        const { reader } = scripted(1000, [t, t, t]);
        const r = reader.read();
        expect(r.nProcs).toBe(expected.size);
        expect(r.rssBytes).toBe(bytes);
        expect(r.partial).toBe(false);
      }),
    );
  });

  it('property: CPU % over ticks sums to the tree\'s total CPU gain', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat(2000), { minLength: 3, maxLength: 3 }), { minLength: 2, maxLength: 10 }), (steps) => {
        // Three processes (root + 2 children) whose CPU grows by the given ms per tick.
        const cum = [0, 0, 0];
        const tables = [[...system, proc(100, 500, 10), proc(101, 100, 11), proc(102, 100, 12)]];
        tables.push(tables[0]!);
        for (const s of steps) {
          s.forEach((d, k) => (cum[k]! += d));
          tables.push([...system, proc(100, 500, 10, cum[0]), proc(101, 100, 11, cum[1]), proc(102, 100, 12, cum[2])]);
        }
        const { reader } = scripted(100, tables);
        let pctSum = 0;
        for (let k = 0; k < steps.length; k++) pctSum += reader.read().cpuPct;
        // Each interval is 1000 ms: percent × 10 = ms.
        expect(pctSum * 10).toBeCloseTo(cum[0]! + cum[1]! + cum[2]!, 4);
      }),
    );
  });
});
