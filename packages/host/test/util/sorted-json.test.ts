import fc from 'fast-check';
import { expect, it } from 'vitest';
import { sortedJson } from '../../src/util/sorted-json.js';

// The recursive form sortedJson replaces (hot/summary.ts and envelope/state/canonical-json.ts
// each had one): a plain copy with sorted keys, then JSON.stringify.
function sortKeysRecursively(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysRecursively);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // Defined, not assigned: `out['__proto__'] = v` would set the copy's prototype and drop the
    // member (a property run once met `{"__proto__": null}`).
    for (const key of Object.keys(value).sort()) Object.defineProperty(out, key, { value: sortKeysRecursively((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

it('writes what JSON.stringify writes of a key-sorted copy, for any JSON value and for undefined members', () => {
  const member = fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constant(Number.NaN), fc.constant(-0));
  // Keys that are array indices (and near misses: '01', '-1', 2^32 - 1) enumerate first in a plain object.
  const key = fc.oneof(fc.string(), fc.nat().map(String), fc.constantFrom('01', '-1', '4294967294', '4294967295', '1e3'));
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, member, fc.array(tie('node')), fc.dictionary(key, tie('node'))),
  })).node;
  fc.assert(
    fc.property(value, (v) => {
      expect(sortedJson(v)).toBe(JSON.stringify(sortKeysRecursively(v)));
    }),
    { numRuns: 500 },
  );
});

it('keeps a member named __proto__, as JSON.parse made it', () => {
  expect(sortedJson(JSON.parse('[{"": [[{"__proto__": null}]], "b": {"__proto__": {"z": 1, "a": 2}}}]'))).toBe('[{"":[[{"__proto__":null}]],"b":{"__proto__":{"a":2,"z":1}}}]');
});

it('writes values nested 200,000 levels deep, where JSON.stringify throws a RangeError', () => {
  const depth = 200_000;
  const arrays = JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
  expect(() => JSON.stringify(arrays)).toThrow(RangeError);
  expect(sortedJson(arrays)).toBe(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
  const objects = JSON.parse(`${'{"b":1,"a":'.repeat(depth)}null${'}'.repeat(depth)}`);
  expect(sortedJson(objects)).toBe(`${'{"a":'.repeat(depth)}null${',"b":1}'.repeat(depth)}`);
});

it('throws for a value that holds itself, and for a non-finite number when asked to', () => {
  const loop: Record<string, unknown> = { a: [1] };
  (loop.a as unknown[]).push(loop);
  expect(() => sortedJson(loop)).toThrow(TypeError);
  // The same object twice, not inside itself, is written twice.
  const shared = { x: 1 };
  expect(sortedJson({ b: shared, a: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  expect(sortedJson({ n: Number.POSITIVE_INFINITY })).toBe('{"n":null}');
  expect(() => sortedJson({ n: Number.NaN }, { nonFinite: 'throw' })).toThrow(/cannot hold NaN/);
  expect(sortedJson(undefined)).toBeUndefined();
});
