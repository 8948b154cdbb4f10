import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repeatedKey } from '../../src/util/json-syntax.js';

// JSON.parse keeps the last value of a key an object gives twice, without a word: a user's file
// (`.cordon.json`, `analyze --rules`) that says a thing twice is refused naming the key and both
// places (util/json-syntax.ts `repeatedKey`).

describe('repeatedKey', () => {
  it('finds nothing in any JSON text without a repeated key, keys in strings and nesting included (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(repeatedKey(text, JSON.parse(text))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('finds a key given twice in any object, however deep, with both places (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 4 }), fc.nat(3), (object, depth) => {
        const [key] = Object.keys(object);
        // The object's own text, with its first member given once more at its end.
        // (Sliced, not String.replace: a key such as "$$" is a replacement pattern there.)
        const inner = `${JSON.stringify(object).slice(0, -1)},${JSON.stringify(key)}:0}`;
        const text = '['.repeat(depth) + inner + ']'.repeat(depth);
        const found = repeatedKey(text, JSON.parse(text));
        expect(found?.key).toBe(key);
        expect(found?.first).toBe(`line 1, column ${depth + 2}`);
      }),
      { numRuns: 300 },
    );
  });

  it('a key that is a replacement pattern elsewhere ("$$", the property\'s counterexample of 2026-12-04) is found like any other', () => {
    const text = '{"$$":false,"":{},"$$":0}';
    expect(repeatedKey(text, JSON.parse(text))).toEqual({ key: '$$', first: 'line 1, column 2', again: 'line 1, column 19' });
  });

  it('says where as an editor counts, over lines', () => {
    const text = '{\n  "a": {"x": 1},\n  "b": {"x": 1, "y": 2, "x": 3}\n}\n';
    expect(repeatedKey(text, JSON.parse(text))).toEqual({ key: 'x', first: 'line 3, column 9', again: 'line 3, column 25' });
  });
});
