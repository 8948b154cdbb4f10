import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexOfByte } from '../../src/util/byte-search.js';

describe('indexOfByte (util/byte-search.ts)', () => {
  it("gives Buffer#indexOf's answer for any bytes, byte and start, also on a view into a larger buffer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 0, max: 255 }), fc.nat(70), fc.nat(8), (bytes, byte, from, offset) => {
        const whole = Buffer.concat([Buffer.alloc(offset, byte), Buffer.from(bytes)]);
        const view = whole.subarray(offset);
        return indexOfByte(view, byte, from) === view.indexOf(byte, from) && indexOfByte(view, byte) === view.indexOf(byte);
      }),
      { numRuns: 2000 },
    );
    expect(indexOfByte(Buffer.from('a\0b\0'), 0, 2)).toBe(3);
  });
});
