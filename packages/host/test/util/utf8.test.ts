import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstNonUtf8 } from '../../src/util/utf8.js';

/** Whether `bytes` decode as UTF-8 with no replacement (WHATWG's fatal decoder). */
function decodes(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

describe('firstNonUtf8', () => {
  it.each([
    ['ASCII', [0x7b, 0x7d], -1],
    ['é, 中, 😀', [...Buffer.from('é中😀')], -1],
    ['a lone 0xff', [0x61, 0xff, 0x62], 1],
    ['a continuation byte first', [0x80], 0],
    ['an overlong slash', [0x61, 0xc0, 0xaf], 1],
    ['an overlong three-byte form', [0xe0, 0x80, 0xaf], 0],
    ['a surrogate (U+D800)', [0x61, 0x62, 0xed, 0xa0, 0x80], 2],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['cut short at the end', [0x61, 0xe4, 0xb8], 1],
  ])('%s', (_label, bytes, expected) => {
    expect(firstNonUtf8(Uint8Array.from(bytes))).toBe(expected);
  });

  it('agrees with the fatal decoder, and everything before the offset decodes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 16 }), (noise, text) => {
        const bytes = Uint8Array.from([...Buffer.from(text), ...noise]);
        const at = firstNonUtf8(bytes);
        expect(at === -1).toBe(decodes(bytes));
        if (at >= 0) expect(decodes(bytes.subarray(0, at))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
