import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocumentEnd } from '../../src/hot/payload-json.js';

// Where the hook's stdin reader sees a payload end while the agent keeps stdin open: it must name
// the chunk holding the document's closing byte, and where in it, whatever the chunks, escapes
// and strings hold.

/** Feeds `bytes` cut at `cuts` (offsets, repeats giving empty chunks); the index of the chunk that completed the document, or -1. */
function completingChunk(bytes: Buffer, cuts: readonly number[]): { chunk: number; chunks: Buffer[]; trues: number; endOffset: number } {
  const points = [...cuts.map((c) => Math.min(c, bytes.length))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  const end = new DocumentEnd();
  let chunk = -1;
  let trues = 0;
  chunks.forEach((c, i) => {
    if (end.push(c)) {
      trues++;
      if (chunk === -1) chunk = i;
    }
  });
  return { chunk, chunks, trues, endOffset: end.endOffset };
}

/** The index of the chunk holding byte `offset`, skipping empty chunks. */
function chunkHolding(chunks: readonly Buffer[], offset: number): number {
  let start = 0;
  for (let i = 0; i < chunks.length; i++) {
    if (offset < start + chunks[i]!.length) return i;
    start += chunks[i]!.length;
  }
  return -1;
}

/** Strings rich in what the scanner must not misread: quotes, backslashes, brackets, raw controls, multi-byte characters. */
const nasty = fc.array(fc.constantFrom('\\', '"', '\\"', '\\\\', '}', ']', '{', '[', 'a', 'é', '😀', '\n', '\t', '\u0001', 'u', '\\u'), { maxLength: 8 }).map((parts) => parts.join(''));

const document = fc.oneof(
  fc.dictionary(nasty, fc.oneof(nasty, fc.integer(), fc.array(nasty, { maxLength: 3 }), fc.dictionary(nasty, nasty, { maxKeys: 3 })), { maxKeys: 4 }),
  fc.array(fc.oneof(nasty, fc.constant(null), fc.array(nasty, { maxLength: 2 })), { maxLength: 4 }),
);

/**
 * `value` as JSON, its strings' control characters either escaped or, as Claude Code sends a
 * heredoc, raw: an escaped backslash is kept whole so `\\n` stays a backslash and an `n`.
 */
function serialise(value: unknown, raw: boolean, indent: number): string {
  const text = JSON.stringify(value, null, indent);
  if (!raw) return text;
  return text.replace(/"(?:[^"\\]|\\.)*"/g, (token) =>
    token.replace(/\\\\|\\u00([01][0-9a-f])|\\([bfnrt])/g, (m: string, hex?: string, letter?: string) => {
      if (hex) return String.fromCharCode(parseInt(hex, 16));
      if (letter) return ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[letter]!;
      return m;
    }),
  );
}

describe('DocumentEnd', () => {
  it('an empty chunk after a chunk ending in a string\'s backslash keeps the escape', () => {
    // `{"a":"\"` then `"}`: the quote after the backslash is escaped, so the next one closes the string.
    const end = new DocumentEnd();
    expect(end.push(Buffer.from('{"a":"\\'))).toBe(false);
    expect(end.push(Buffer.alloc(0))).toBe(false);
    expect(end.push(Buffer.from('""}'))).toBe(true);
    expect(end.complete).toBe(true);
  });

  it('completes on the chunk that holds the closing byte, for any document cut anywhere (empty chunks too), and only once', () => {
    fc.assert(
      fc.property(
        document,
        fc.boolean(),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom('', ' ', '\n\t ', '\ufeff', '\ufeff\r\n'),
        fc.constantFrom('', '\n', '}', '"}]', '{"more":1}', '\\'),
        fc.array(fc.nat(), { maxLength: 12 }),
        (value, raw, indent, lead, trail, cuts) => {
          const body = serialise(value, raw, indent);
          const bytes = Buffer.from(lead + body + trail);
          const last = Buffer.byteLength(lead + body) - 1;
          const scaled = cuts.map((c) => c % (bytes.length + 1));
          const { chunk, chunks, trues, endOffset } = completingChunk(bytes, scaled);
          expect(chunk).toBe(chunkHolding(chunks, last));
          expect(trues).toBe(1);
          // Where in that chunk the document ends: just past its closing byte.
          const start = chunks.slice(0, chunk).reduce((sum, c) => sum + c.length, 0);
          expect(start + endOffset).toBe(last + 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never completes a document that is cut off before its closing byte, or one that starts with a scalar', () => {
    fc.assert(
      fc.property(document, fc.boolean(), fc.array(fc.nat(), { maxLength: 8 }), fc.nat(), (value, raw, cuts, at) => {
        const body = Buffer.from(serialise(value, raw, 0));
        const cutOff = body.subarray(0, at % body.length);
        expect(completingChunk(cutOff, cuts.map((c) => c % (cutOff.length + 1))).chunk).toBe(-1);
        const scalar = Buffer.from(`"x"${body.toString()}`);
        expect(completingChunk(scalar, cuts.map((c) => c % (scalar.length + 1))).chunk).toBe(-1);
      }),
      { numRuns: 300 },
    );
  });
});

describe('DocumentEnd: the cost of a string of many escapes', () => {
  /** A chunk that counts the bytes its `indexOf` looks at (from where a search starts to where it stops). */
  class CountingChunk extends Uint8Array {
    scanned = 0;
    override indexOf(value: number, from = 0): number {
      const at = super.indexOf(value, from);
      this.scanned += (at === -1 ? this.length : at + 1) - from;
      return at;
    }
  }

  it.each([
    ['newlines escaped, no quote until the end (a file of short lines)', 'line of text\\n'],
    ['non-ASCII text escaped as \\uXXXX (json.dumps with ensure_ascii)', '\\u0436\\u0443'],
    ['Windows paths, every backslash doubled', 'C:\\\\dir\\\\'],
  ])('%s: each byte of a chunk is looked at a bounded number of times, not once per escape', (_label, unit) => {
    const text = `{"session_id":"s","tool_input":{"content":"${unit.repeat(Math.ceil(64 * 1024 / unit.length))}"}}`;
    const bytes = Buffer.from(text);
    // One chunk, as a socket read can bring (a plain Uint8Array, as libuv's handle gives it).
    const chunk = new CountingChunk(bytes.length);
    chunk.set(bytes);
    const end = new DocumentEnd();
    expect(end.push(chunk)).toBe(true);
    expect(end.endOffset).toBe(bytes.length);
    // Before: the quote was searched for again after every escape, to the end of the chunk: about
    // (escapes x chunk / 2) bytes, 150 M for this 64 KiB chunk of lines: 2,300 times its size.
    expect(chunk.scanned).toBeLessThanOrEqual(3 * bytes.length);
  });
});
