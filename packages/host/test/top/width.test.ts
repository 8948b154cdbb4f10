import { describe, expect, it } from 'vitest';
import { terminalColumns, terminalRows } from '../../src/output/terminal-width.js';
import { topWidth } from '../../src/top/width.js';

describe('the width a terminal is laid out to', () => {
  it('takes the columns the terminal reports when it reports a positive number', () => {
    expect(terminalColumns(132, {})).toBe(132);
    expect(terminalColumns(132, { COLUMNS: '50' })).toBe(132);
  });

  it('0 or unknown columns fall back to a valid COLUMNS, else 80', () => {
    for (const reported of [0, undefined, -3, Number.NaN]) {
      expect(terminalColumns(reported, {})).toBe(80);
      expect(terminalColumns(reported, { COLUMNS: '120' })).toBe(120);
      for (const bad of ['0', '', 'wide', '-5', '1e3', '12.5']) expect(terminalColumns(reported, { COLUMNS: bad }), bad).toBe(80);
    }
  });

  it('0 or unknown rows fall back to a valid LINES, else 24', () => {
    expect(terminalRows(50, { LINES: '10' })).toBe(50);
    for (const reported of [0, undefined, -3, Number.NaN]) {
      expect(terminalRows(reported, {})).toBe(24);
      expect(terminalRows(reported, { LINES: '40' })).toBe(40);
      for (const bad of ['0', '', 'tall', '-5', '1e3', '12.5']) expect(terminalRows(reported, { LINES: bad }), bad).toBe(24);
    }
  });

  it('cordon top keeps off the last column and never goes below 40', () => {
    expect(topWidth(0, {})).toBe(79);
    expect(topWidth(100, {})).toBe(99);
    expect(topWidth(0, { COLUMNS: '10' })).toBe(40);
    expect(topWidth(30, {})).toBe(40);
  });
});
