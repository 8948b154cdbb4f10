import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameNumber } from '../src/name-number.js';

describe('nameNumber', () => {
  it('reads the planted spellings Number() takes as no number', () => {
    for (const text of ['1e3', ' 7', '7 ', '0x10', '07', '1.0', '+7', '-7', '', '0', 'Infinity', '9007199254740992', '99999999999999999999', '٣']) expect(nameNumber(text)).toBeUndefined();
    expect(nameNumber('7')).toBe(7);
    expect(nameNumber('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('is a number exactly when String() of a positive safe integer spells the text (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 20 }), fc.nat().map(String), fc.double().map(String), fc.bigInt({ min: 0n, max: 2n ** 60n }).map(String)), (text) => {
        const n = Number(text);
        const expected = Number.isSafeInteger(n) && n > 0 && String(n) === text ? n : undefined;
        expect(nameNumber(text)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
