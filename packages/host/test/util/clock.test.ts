import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/util/clock.js';

// isoTimestamp formats without V8's time-zone cache (src/util/clock.ts); it must print exactly
// what Date.prototype.toISOString prints, for every instant.

describe('isoTimestamp', () => {
  it('is toISOString for any integer instant of years 0000-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62167219200000, max: 253402300799999 }), (ms) => isoTimestamp(ms) === new Date(ms).toISOString()),
      { numRuns: 20000 },
    );
  });

  it('the edges: the epoch, just before it, leap days, century years, the first and last instants', () => {
    for (const text of ['1970-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2000-02-29T12:00:00.500Z', '1900-03-01T00:00:00.000Z', '2100-02-28T23:59:59.999Z', '2024-12-31T23:59:59.999Z', '0000-01-01T00:00:00.000Z', '0000-02-29T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      expect(isoTimestamp(Date.parse(text))).toBe(text);
    }
  });

  it('outside 0000-9999, a fraction of a millisecond and an invalid time go to toISOString', () => {
    expect(isoTimestamp(253402300800000)).toBe('+010000-01-01T00:00:00.000Z');
    expect(isoTimestamp(-62167219200001)).toBe('-000001-12-31T23:59:59.999Z');
    expect(isoTimestamp(1.5)).toBe('1970-01-01T00:00:00.001Z');
    expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
  });

  it('defaults to now', () => {
    const before = Date.now();
    const at = Date.parse(isoTimestamp());
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});
