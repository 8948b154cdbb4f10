import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutText, cutTextEnd, cutUtf8, cutUtf8Bytes, wellFormed } from '@cordon/plugin-api';

/** True when `s` has no lone surrogate (it round-trips through UTF-8 unchanged). */
const valid = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;

describe('text cuts on character boundaries', () => {
  it('the issue example: an emoji at the cut is kept whole or dropped whole', () => {
    const text = 'x'.repeat(1999) + '😀' + 'tail';
    expect(cutText(text, 2000)).toBe('x'.repeat(1999));
    expect(cutText(text, 2001)).toBe('x'.repeat(1999) + '😀');
    expect(cutTextEnd('😀' + 'y'.repeat(10), 10 + 1)).toBe('y'.repeat(10));
    expect(cutUtf8('é'.repeat(3), 5)).toBe('éé');
    expect(cutUtf8Bytes(Buffer.from('a😀', 'utf8'), 4)).toBe('a');
  });

  it('every cut of random Unicode text is valid UTF-8, within its limit and a prefix/suffix', () => {
    const anyText = fc.string({ unit: 'binary', maxLength: 60 });
    fc.assert(
      fc.property(anyText, fc.nat(70), (text, n) => {
        const head = cutText(text, n);
        const tail = cutTextEnd(text, n);
        const bytes = cutUtf8(text, n);
        expect(valid(head) && valid(tail) && valid(bytes)).toBe(true);
        expect(head.length).toBeLessThanOrEqual(n);
        expect(tail.length).toBeLessThanOrEqual(n);
        expect(Buffer.byteLength(bytes, 'utf8')).toBeLessThanOrEqual(n);
        const clean = wellFormed(text);
        expect(clean.startsWith(head)).toBe(true);
        expect(clean.endsWith(tail)).toBe(true);
        expect(clean.startsWith(bytes)).toBe(true);
        // Only a dropped pair's half is lost: the cut is as long as it can be.
        expect(head.length).toBeGreaterThanOrEqual(Math.min(n, clean.length) - 1);
      }),
      { numRuns: 2000 },
    );
  });

  it('byte cuts of UTF-8 never end inside a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(200), (text, n) => {
        // The text may hold U+FFFD itself (and a lone surrogate encodes as U+FFFD): judge the cut
        // by its bytes. Cut on a boundary, the kept bytes decode and re-encode to themselves; cut
        // inside a character, they would come back as U+FFFD's three bytes instead.
        const bytes = Buffer.from(text, 'utf8');
        const out = cutUtf8Bytes(bytes, n);
        const kept = Buffer.from(out, 'utf8');
        expect(valid(out)).toBe(true);
        expect(kept.equals(bytes.subarray(0, kept.length))).toBe(true);
        expect(kept.length).toBeLessThanOrEqual(n);
        // As long as fits: at most one character (≤ 3 bytes of it) short of the limit.
        expect(kept.length).toBeGreaterThanOrEqual(Math.min(n, bytes.length) - 3);
      }),
      { numRuns: 1000 },
    );
  });

  it('byte cuts keep a real U+FFFD and the U+FFFD a lone surrogate encodes to', () => {
    expect(cutUtf8Bytes(Buffer.from('\ufffd', 'utf8'), 3)).toBe('\ufffd');
    expect(cutUtf8Bytes(Buffer.from('a\ufffdb', 'utf8'), 3)).toBe('a');
    expect(cutUtf8Bytes(Buffer.from('\ud800x', 'utf8'), 3)).toBe('\ufffd');
  });
});
