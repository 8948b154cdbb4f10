import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildProcessTable, parseProcessTable, SPI_OFFSETS, THREAD_INFO_SIZE, type RecordFields } from '../src/process-table.js';

const MiB = 1024 * 1024;
/** FILETIME (100 ns since 1601) of 2020-01-01 and 2040-01-01. */
const FT_2020 = 132_223_104_000_000_000n;
const FT_2040 = 138_534_624_000_000_000n;

describe('parseProcessTable: a buffer recorded under Wine', () => {
  const buf = readFileSync(new URL('./fixtures/wine8-process-table.bin', import.meta.url));
  const table = parseProcessTable(buf);

  it('follows the NextEntryOffset chain through all seven processes', () => {
    expect(table.map((p) => [p.pid, p.ppid])).toEqual([
      [56, 40],
      [68, 56],
      [112, 56],
      [148, 56],
      [180, 56],
      [220, 56],
      [280, 0],
    ]);
  });

  it('reads times, working set and private bytes of each', () => {
    const node = table.find((p) => p.pid === 280)!;
    expect(node.cpu100ns).toBe(10_500_000); // 1.05 s of user + kernel time at startup
    expect(node.workingSetBytes).toBe(113_381_376);
    expect(table.map((p) => p.workingSetBytes)).toEqual([17956864, 17743872, 22327296, 16121856, 10870784, 14286848, 113381376]);
    expect(table.every((p) => p.privateBytes === 0)).toBe(true); // Wine leaves PrivatePageCount at 0
    for (const p of table) {
      expect(p.createTime > FT_2020 && p.createTime < FT_2040).toBe(true);
      expect(p.workingSetBytes).toBeGreaterThan(MiB);
    }
    // Children are created after their parent.
    const services = table[0]!;
    for (const p of table.filter((q) => q.ppid === 56)) expect(p.createTime > services.createTime).toBe(true);
  });

  it('throws RangeError when the buffer is cut inside a record', () => {
    expect(() => parseProcessTable(buf, buf.length - 300)).toThrow(RangeError);
    expect(() => parseProcessTable(buf.subarray(0, 100))).toThrow(RangeError);
  });
});

const fieldsArb: fc.Arbitrary<RecordFields> = fc.record({
  pid: fc.nat(0xfffffff),
  ppid: fc.nat(0xfffffff),
  createTime: fc.bigInt(0n, FT_2040),
  userTime: fc.bigInt(0n, 1n << 50n),
  kernelTime: fc.bigInt(0n, 1n << 50n),
  workingSetBytes: fc.nat(2 ** 45),
  privateBytes: fc.nat(2 ** 45),
  threads: fc.integer({ min: 0, max: 40 }),
});

describe('parseProcessTable: hand-built buffers', () => {
  it('reads each field at its x64 offset', () => {
    const buf = buildProcessTable([{ pid: 4, ppid: 0, createTime: FT_2020, userTime: 5n, kernelTime: 7n, workingSetBytes: 300 * MiB, privateBytes: 200 * MiB, threads: 3 }]);
    expect(buf.length).toBe(SPI_OFFSETS.size + 3 * THREAD_INFO_SIZE);
    expect(buf.readBigUInt64LE(80)).toBe(4n);
    expect(buf.readBigUInt64LE(144)).toBe(BigInt(300 * MiB));
    expect(parseProcessTable(buf)).toEqual([{ pid: 4, ppid: 0, createTime: FT_2020, cpu100ns: 12, workingSetBytes: 300 * MiB, privateBytes: 200 * MiB }]);
  });

  it('property: build then parse gives the records back, whatever the thread counts', () => {
    fc.assert(
      fc.property(fc.array(fieldsArb, { minLength: 1, maxLength: 20 }), (records) => {
        const parsed = parseProcessTable(buildProcessTable(records));
        expect(parsed).toEqual(
          records.map((r) => ({ pid: r.pid, ppid: r.ppid, createTime: r.createTime, cpu100ns: Number(r.userTime + r.kernelTime), workingSetBytes: r.workingSetBytes, privateBytes: r.privateBytes })),
        );
      }),
    );
  });

  it('ignores bytes after ReturnLength and throws on an offset that does not advance past a record', () => {
    const records: RecordFields[] = [
      { pid: 8, ppid: 4, createTime: 1n, userTime: 0n, kernelTime: 0n, workingSetBytes: 1, privateBytes: 1 },
      { pid: 9, ppid: 8, createTime: 2n, userTime: 0n, kernelTime: 0n, workingSetBytes: 1, privateBytes: 1 },
    ];
    const buf = buildProcessTable(records);
    const padded = Buffer.concat([buf, Buffer.alloc(4096, 0xff)]);
    expect(parseProcessTable(padded, buf.length).map((p) => p.pid)).toEqual([8, 9]);
    const bad = Buffer.from(buf);
    bad.writeUInt32LE(16, 0);
    expect(() => parseProcessTable(bad)).toThrow(RangeError);
  });
});
