import { describe, expect, it } from 'vitest';
import { renderTop } from '../../src/top/render.js';
import { SORT_KEYS_PRESSED, SORT_LABELS, SORT_LETTERS, TOP_SORT_KEYS } from '../../src/top/sort.js';

// The live view's sort keys: one letter per order, the same in either case (`P` sorted by CPU
// and `p` by directory), and the help line in the header says each letter with its order.

describe('cordon top sort keys', () => {
  it('each letter sorts by one order in either case, and every order has a letter', () => {
    const byLetter = new Map<string, Set<string>>();
    for (const [pressed, key] of Object.entries(SORT_KEYS_PRESSED)) {
      const letter = pressed.toLowerCase();
      byLetter.set(letter, (byLetter.get(letter) ?? new Set()).add(key));
    }
    for (const [letter, keys] of byLetter) expect([letter, [...keys]]).toEqual([letter, [expect.any(String)]]);
    expect(TOP_SORT_KEYS.map((key) => [key, SORT_KEYS_PRESSED[SORT_LETTERS[key]], SORT_KEYS_PRESSED[SORT_LETTERS[key].toUpperCase()]])).toEqual(TOP_SORT_KEYS.map((key) => [key, key, key]));
    expect([SORT_KEYS_PRESSED.p, SORT_KEYS_PRESSED.P]).toEqual(['cwd', 'cwd']);
    expect(SORT_KEYS_PRESSED.q).toBeUndefined();
  });

  it('the live header lists every letter with its order', () => {
    const [header] = renderTop({ at: 0, data_dir: '/d', sort: 'mem', sessions: [] } as never, { width: 500, live: true });
    expect(header).toMatch(/ · sorted by memory · \d\d:\d\d:\d\d · sort: c CPU, m mem, t time, d call, p dir · q quits$/);
    expect(SORT_LABELS.cwd).toBe('directory');
    // The help is not shown in a one-off snapshot (--once), which reads no keys.
    expect(renderTop({ at: 0, data_dir: '/d', sort: 'mem', sessions: [] } as never, { width: 500 })[0]).not.toContain('sort:');
  });
});
