import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columns, cutColumns, padColumns, padColumnsStart } from '../../src/top/columns.js';
import { terminalText } from '../../src/output/terminal.js';

// `cordon top` cuts every row to the terminal's width so that none wraps: a cut must never be
// wider than asked, whatever characters the agent's commands and paths hold.

describe('cutColumns', () => {
  // A probe: a Write path `x\e]52;…\e[2J` showed in `top --once --width 79` as `…\u001b[2J\u…`.
  it('never keeps part of a \\uXXXX escape of the already-escaped text', () => {
    const escaped = terminalText('x\u001b]52;c;QUJD\u0007\u001b[2J');
    for (let width = 1; width <= escaped.length + 1; width++) {
      const cut = cutColumns(escaped, width);
      expect(cut.replace(/…$/, ''), `width ${width}`).not.toMatch(/\\(u[0-9a-f]{0,3})?$/);
      expect(escaped.startsWith(cut.replace(/…$/, ''))).toBe(true);
    }
  });

  it('an emoji made wide by U+FE0F counts two columns, so a row of them is cut to the width', () => {
    // ❤ alone is one column, ❤ + U+FE0F two: measured one code point at a time the cut kept nine.
    const cut = cutColumns('❤\ufe0f'.repeat(20), 10);
    expect(cut).toBe(`${'❤\ufe0f'.repeat(4)}…`);
    expect(columns(cut)).toBe(9);
  });

  it('keeps a flag and a skin-toned emoji whole', () => {
    expect(cutColumns('🇫🇷'.repeat(10), 6)).toBe('🇫🇷🇫🇷…');
    expect(cutColumns('👍🏽'.repeat(10), 7)).toBe('👍🏽👍🏽👍🏽…');
  });

  it('never gives more columns than the width, and gives a prefix of the text whole or followed by …', () => {
    // Marks that extend a character come only with one: alone at the start, string-width joins them to a pad's space.
    const unit = fc.constantFrom('a', ' ', 'é', 'e\u0301', '中', '❤', '❤\ufe0f', '☺\ufe0f', '#\ufe0f\u20e3', '🇫', '🇷', '👍', '👍🏽', '😀');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), fc.integer({ min: 0, max: 40 }), (units, width) => {
        const text = units.join('');
        const cut = cutColumns(text, width);
        expect(columns(cut)).toBeLessThanOrEqual(Math.max(0, width));
        if (cut !== text) {
          expect(width === 0 ? cut === '' : cut.endsWith('…')).toBe(true);
          expect(text.startsWith(cut.slice(0, -1))).toBe(true);
        }
        expect(columns(padColumns(text, width))).toBe(Math.max(0, width));
        expect(columns(padColumnsStart(text, width))).toBe(Math.max(0, width));
      }),
      { numRuns: 300 },
    );
  });
});
