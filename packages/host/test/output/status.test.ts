import { afterEach, describe, expect, it } from 'vitest';
import { clearStatus, enableStatus, setStatus } from '../../src/output/status.js';

// The status line (src/output/status.ts) on a stand-in terminal stream: what it draws, and how
// wide, for the width the terminal reports.

/** A terminal stream of `columns` that records what is written to it. */
function terminal(columns: number | undefined): NodeJS.WriteStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY: true, columns, written, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream & { written: string[] };
}

afterEach(() => clearStatus());

describe('the status line', () => {
  const text = `cordon check: verifier 1 of 1: ${'x'.repeat(40)}`;
  it.each([
    { columns: 0, width: 79, why: 'no width reported: 80 columns' },
    { columns: undefined, width: 79, why: 'no width at all: 80 columns' },
    { columns: 40, width: 39, why: 'one column less than the terminal' },
    { columns: 5, width: 20, why: 'never under 20' },
  ])('$why', ({ columns, width }) => {
    const stream = terminal(columns);
    expect(enableStatus({ stream })).toBe(true);
    setStatus(text);
    const drawn = stream.written.at(-1)!.replace('\r\x1b[2K', '');
    expect(drawn.length).toBe(Math.min(width, `${text} · 0 s`.length));
    expect(drawn.startsWith('cordon check: ')).toBe(true);
  });
});
