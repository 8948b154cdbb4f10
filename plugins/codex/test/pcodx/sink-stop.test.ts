import { describe, expect, it } from 'vitest';
import { linesOut, textPiecesOut, type Sink } from '../../src/pcodx/output.js';

// A sink whose write says its reader has gone (`writeOutput` returns false after EPIPE:
// `pcodx show | head`) stops what feeds it: the ledger reads no more of the render.

/** A sink that takes `room` writes, then answers false (the reader has gone). */
function closingSink(room: number): Sink & { written: string[] } {
  const written: string[] = [];
  return {
    written,
    out: (line) => void written.push(`${line}\n`),
    err: () => undefined,
    write: (text) => {
      if (written.length >= room) return false;
      written.push(text);
      return undefined;
    },
  };
}

describe('a sink whose reader has gone', () => {
  it('textPiecesOut tells the producer to stop, and writes no closing newline', async () => {
    const sink = closingSink(2);
    const answers: unknown[] = [];
    await textPiecesOut(sink, async (write) => {
      for (let i = 0; i < 5; i++) {
        const answer = await write(`piece${i}`);
        answers.push(answer);
        if (answer === false) return;
      }
    });
    expect(sink.written).toEqual(['piece0', 'piece1']);
    expect(answers).toEqual([true, true, false]);
  });

  it('textPiecesOut with a reader that stays: every piece, then the newline', async () => {
    const sink = closingSink(Infinity);
    await textPiecesOut(sink, async (write) => {
      for (let i = 0; i < 3; i++) expect(await write(`p${i}`)).toBe(true);
    });
    expect(sink.written).toEqual(['p0', 'p1', 'p2', '\n']);
  });

  it('linesOut resolves false once the sink says so, and writes nothing after', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `msg${i + 1}`);
    const sink = closingSink(1);
    expect(await linesOut(sink, lines)).toBe(false);
    expect(sink.written).toHaveLength(1);
    const open = closingSink(Infinity);
    expect(await linesOut(open, lines)).toBe(true);
    expect(open.written.join('')).toBe(lines.map((l) => `${l}\n`).join(''));
  });
});
