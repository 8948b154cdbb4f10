import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteSize } from '../../src/output/byte-size.js';

describe('byteSize', () => {
  it('shows bytes in binary units: whole multiples without a decimal, others to one', () => {
    const cases: Array<[number, string]> = [
      [0, '0 B'],
      [13, '13 B'],
      [1023, '1023 B'],
      [1024, '1 KiB'],
      [1536, '1.5 KiB'],
      [1_000_000, '976.6 KiB'],
      [2_097_152, '2 MiB'],
      [4_194_304, '4 MiB'],
      [90_000_000, '85.8 MiB'],
      [2 ** 30, '1 GiB'],
      [3 * 2 ** 40, '3 TiB'],
    ];
    expect(cases.map(([n]) => [n, byteSize(n)])).toEqual(cases);
  });

  it('reads back to within a twentieth of a unit', () => {
    const units: Record<string, number> = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (n) => {
        const [value, unit] = byteSize(n).split(' ') as [string, string];
        expect(Math.abs(Number(value) * units[unit]! - n)).toBeLessThanOrEqual(units[unit]! * 0.05);
      }),
    );
  });
});
