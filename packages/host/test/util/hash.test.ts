import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCRIPT_HASH_MAX_BYTES, sha1Hex, sha256Hex } from '../../src/util/hash.js';
import { randomHex } from '../../src/util/random.js';

const nodeHex = (algorithm: string, data: string | Uint8Array) => createHash(algorithm).update(data).digest('hex');

describe('sha256Hex and sha1Hex', () => {
  it('give node:crypto’s digest for bytes on both sides of the JavaScript limit', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: SCRIPT_HASH_MAX_BYTES + 200 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(nodeHex('sha256', bytes));
        expect(sha1Hex(bytes)).toBe(nodeHex('sha1', bytes));
      }),
      { numRuns: 300 },
    );
    for (const n of [0, 55, 56, 63, 64, SCRIPT_HASH_MAX_BYTES - 1, SCRIPT_HASH_MAX_BYTES, SCRIPT_HASH_MAX_BYTES + 1, 1 << 20]) {
      const bytes = Buffer.alloc(n, n & 0xff);
      expect(sha256Hex(bytes), `${n} bytes`).toBe(nodeHex('sha256', bytes));
    }
  });

  it('hash a string as its UTF-8 bytes (lone surrogates as U+FFFD, as Buffer.from does)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 700 }), (text) => {
        expect(sha256Hex(text)).toBe(nodeHex('sha256', Buffer.from(text, 'utf8')));
      }),
    );
    // FIPS 180-4 example: SHA-256("abc").
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
  });
});

describe('randomHex', () => {
  it('gives 2 hex digits per byte, different each call', () => {
    const seen = new Set<string>();
    for (const n of [1, 6, 12, 16, 64, 1000]) {
      const hex = randomHex(n);
      expect(hex).toMatch(new RegExp(`^[0-9a-f]{${2 * n}}$`));
      seen.add(hex);
    }
    for (let i = 0; i < 200; i++) seen.add(randomHex(12));
    expect(seen.size).toBe(206);
  });
});
