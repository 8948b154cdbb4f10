import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { splitJsonLines } from '../../src/io/append.js';
import { forEachLine, MAX_LINE_CHARS, readJsonLines } from '../../src/io/read-lines.js';
import { readSamples } from '../../src/telemetry/reduce/samples.js';

// The streamed reader `cordon reduce` uses for markers and samples: it must cut a file
// into exactly the lines the whole-file `readFileSync(path, 'utf8').split('\n')` gave, whatever
// falls on its 64 KiB chunk boundaries.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-read-lines-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What the reader must give: the whole file split on `\n`, without the empty end a trailing newline leaves. */
function splitWhole(path: string): Array<[string, number]> {
  const pieces = readFileSync(path, 'utf8').split('\n');
  if (pieces[pieces.length - 1] === '') pieces.pop();
  return pieces.map((line, i) => [line, i + 1]);
}

function streamed(path: string): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  forEachLine(path, (line, n) => out.push([line, n]));
  return out;
}

describe('forEachLine', () => {
  it('gives a torn last line (no newline) as it is, and keeps the \\r of CRLF lines', () => {
    const path = join(dir, 'torn.jsonl');
    writeFileSync(path, '{"a":1}\r\n{"b":2}\r\n{"c":');
    expect(streamed(path)).toEqual([
      ['{"a":1}\r', 1],
      ['{"b":2}\r', 2],
      ['{"c":', 3],
    ]);
  });

  it('an empty file gives no line; blank lines inside keep their numbers', () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    expect(streamed(empty)).toEqual([]);
    const blanks = join(dir, 'blanks');
    writeFileSync(blanks, '\n\nx\n\n');
    expect(streamed(blanks)).toEqual([
      ['', 1],
      ['', 2],
      ['x', 3],
      ['', 4],
    ]);
  });

  it('joins a line longer than several chunks and a character split across a chunk boundary', () => {
    const path = join(dir, 'long');
    // 65,535 ASCII bytes, then a 4-byte emoji straddling the 64 KiB boundary, then a 200 KiB line.
    const first = `${'a'.repeat(65_535)}😀é`;
    const long = 'é'.repeat(100_000);
    writeFileSync(path, `${first}\n${long}\nend`);
    expect(streamed(path)).toEqual([
      [first, 1],
      [long, 2],
      ['end', 3],
    ]);
  });

  it('reads invalid UTF-8 as U+FFFD exactly as readFileSync does, at any chunk boundary', () => {
    const path = join(dir, 'bad-utf8');
    const bytes = Buffer.concat([Buffer.alloc(65_534, 0x62), Buffer.from([0xf0, 0x9f, 0x0a, 0xff, 0xc3]), Buffer.from('\nok\n'), Buffer.from([0xe2, 0x82])]);
    writeFileSync(path, bytes);
    expect(streamed(path)).toEqual(splitWhole(path));
  });

  it('matches split(\\n) of the whole file for any text, CRLF and blank lines included', () => {
    const pieces = fc.constantFrom('{"t":1}', '\n', '\r\n', '', ' ', 'é', '😀', '\r', 'x'.repeat(70_000));
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const path = join(dir, 'prop');
        writeFileSync(path, parts.join(''));
        expect(streamed(path)).toEqual(splitWhole(path));
      }),
      { numRuns: 150 },
    );
  });

  it('throws UnsafeReadError missing for a missing file, and not-regular for a directory or a FIFO, at once', () => {
    expect(() => forEachLine(join(dir, 'absent'), () => undefined)).toThrow(expect.objectContaining({ name: 'UnsafeReadError', reason: 'missing' }));
    mkdirSync(join(dir, 'a-dir'));
    expect(() => forEachLine(join(dir, 'a-dir'), () => undefined)).toThrow(expect.objectContaining({ reason: 'not-regular', message: `${join(dir, 'a-dir')}: is not a regular file (a directory)` }));
    // A FIFO nobody writes to: opened without blocking and refused, not waited on.
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(() => forEachLine(join(dir, 'fifo'), () => undefined)).toThrow(expect.objectContaining({ reason: 'not-regular' }));
  });
});

describe('readJsonLines', () => {
  const isObject = (v: unknown): v is { k: number } => typeof v === 'object' && v !== null && typeof (v as { k?: unknown }).k === 'number';

  it('finds what splitJsonLines finds in the whole text: torn last line, CRLF, blank and foreign lines', () => {
    const text = '{"k":1}\r\n\r\n   \n[1]\n{"k":2}\n{"k":3,"x":\n\n{"k":4}\r\n{"k":';
    const path = join(dir, 'mixed.jsonl');
    writeFileSync(path, text);
    const streamedResult = readJsonLines(path, isObject);
    expect(streamedResult).toEqual(splitJsonLines(text, isObject));
    expect(streamedResult).toEqual({ values: [{ k: 1 }, { k: 2 }, { k: 4 }], badLines: [4, 6, 9] });
  });
});

describe('readSamples (streamed)', () => {
  it('counts a torn last line and a blank line inside as unreadable, reads CRLF lines, ignores the trailing newline', () => {
    const path = join(dir, 'samples.jsonl');
    writeFileSync(path, '{"t":2,"mem_mb":20,"cpu_pct":1,"n_procs":1,"partial":false}\r\n\n{"t":1,"mem_mb":10}\n{"t":3,"mem');
    const { samples, badLines } = readSamples(path);
    expect(samples).toEqual([
      { t: 1, mem_mb: 10, cpu_pct: 0, n_procs: 0, partial: false },
      { t: 2, mem_mb: 20, cpu_pct: 1, n_procs: 1, partial: false },
    ]);
    expect(badLines).toEqual([2, 4]);
    writeFileSync(path, '{"t":1,"mem_mb":10}\n');
    expect(readSamples(path).badLines).toEqual([]);
  });
});

// A line of any length was held until its newline came: a sparse file of NUL bytes without one
// (`truncate -s 2G samples.jsonl`) took 2.7 GB of memory, then failed as "Invalid string length"
// and the session could not be reduced at all.
describe('a line longer than MAX_LINE_CHARS', () => {
  it('is given to onLongLine by number, never to onLine, at any chunk boundary; the other lines are as split gives them', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(''), fc.string({ maxLength: 12 }), fc.string({ minLength: 5, maxLength: 40 })), { maxLength: 12 }), fc.integer({ min: 1, max: 16 }), (pieces, max) => {
        const path = join(dir, 'long.txt');
        writeFileSync(path, pieces.join('\n'));
        const short: Array<[string, number]> = [];
        const long: number[] = [];
        forEachLine(path, (line, n) => short.push([line, n]), { maxLineChars: max, onLongLine: (n) => long.push(n) });
        const whole = splitWhole(path);
        expect(short).toEqual(whole.filter(([line]) => line.length <= max));
        expect(long).toEqual(whole.filter(([line]) => line.length > max).map(([, n]) => n));
      }),
      { numRuns: 300 },
    );
  });

  it('counts as an unreadable sample or marker line even when it is valid JSON', () => {
    const path = join(dir, 'samples.jsonl');
    const pad = 'x'.repeat(MAX_LINE_CHARS);
    writeFileSync(path, [`{"t":1,"mem_mb":1}`, `{"t":2,"mem_mb":2,"pad":"${pad}"}`, `{"t":3,"mem_mb":3}`, ''].join('\n'));
    expect(readSamples(path)).toEqual({ samples: [1, 3].map((t) => ({ t, mem_mb: t, cpu_pct: 0, n_procs: 0, partial: false })), badLines: [2] });
    expect(readJsonLines(path, (v): v is unknown => true).badLines).toEqual([2]);
  });

  it('a 600 MiB file of NUL bytes without a newline (sparse) is one unreadable line, read in bounded memory', () => {
    const path = join(dir, 'samples.jsonl');
    writeFileSync(path, '{"t":1,"mem_mb":1}\n');
    // Past V8's longest string (2^29 - 24 characters): the old reader could not hold it.
    truncateSync(path, 600 * 2 ** 20);
    expect(readSamples(path)).toEqual({ samples: [{ t: 1, mem_mb: 1, cpu_pct: 0, n_procs: 0, partial: false }], badLines: [2] });
  }, 120_000);
});
