import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendLine, splitJsonLines } from '../../src/io/append.js';
import { tempDirForTest } from '../../../../test/support/temp.js';

const temp = (): string => tempDirForTest('cordon-append-');
const isObject = (v: unknown): v is { n: number } => !!v && typeof v === 'object' && typeof (v as { n?: unknown }).n === 'number';

describe('appendLine', () => {
  it('creates the file owner-only and appends whole lines', () => {
    const dir = temp();
    const old = process.umask(0o022);
    try {
      appendLine(join(dir, 'log.jsonl'), '{"n":1}\n');
    } finally {
      process.umask(old);
    }
    appendLine(join(dir, 'log.jsonl'), '{"n":2}\n');
    expect(readFileSync(join(dir, 'log.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(statSync(join(dir, 'log.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('a torn tail (a line without its newline) is ended before the next line, which survives', () => {
    const dir = temp();
    const path = join(dir, 'markers.jsonl');
    writeFileSync(path, '{"n":1}\n{"n":2,"ev', { mode: 0o600 });
    appendLine(path, '{"n":3}\n');
    const { values, badLines } = splitJsonLines(readFileSync(path, 'utf8'), isObject);
    expect(values.map((v) => v.n)).toEqual([1, 3]);
    expect(badLines).toEqual([2]);
  });

  it('never appends through a symbolic link', () => {
    const dir = temp();
    writeFileSync(join(dir, 'victim'), 'precious\n');
    symlinkSync(join(dir, 'victim'), join(dir, 'log.jsonl'));
    expect(() => appendLine(join(dir, 'log.jsonl'), '{"n":1}\n')).toThrow(/ELOOP/);
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('precious\n');
  });

  it('never appends to a hard link of another file, a FIFO or a directory: the error names the path', () => {
    const dir = temp();
    writeFileSync(join(dir, 'victim'), 'precious\n');
    linkSync(join(dir, 'victim'), join(dir, 'markers.jsonl'));
    expect(() => appendLine(join(dir, 'markers.jsonl'), '{"n":1}\n')).toThrow(/markers\.jsonl: it has 2 hard links/);
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('precious\n');
    // Once the other name is gone the file is the log's own again.
    unlinkSync(join(dir, 'victim'));
    appendLine(join(dir, 'markers.jsonl'), '{"n":1}\n');
    expect(readFileSync(join(dir, 'markers.jsonl'), 'utf8')).toBe('precious\n{"n":1}\n');
    execFileSync('mkfifo', [join(dir, 'fifo.jsonl')]);
    expect(() => appendLine(join(dir, 'fifo.jsonl'), '{"n":1}\n')).toThrow(/fifo\.jsonl: it is not a regular file/);
    mkdirSync(join(dir, 'dir.jsonl'));
    expect(() => appendLine(join(dir, 'dir.jsonl'), '{"n":1}\n')).toThrow(/EISDIR|not a regular file/);
  });
});

describe('splitJsonLines', () => {
  it('skips blank lines, counts unparseable and rejected ones', () => {
    const r = splitJsonLines('{"n":1}\n\n{"x":1}\nnot json\n{"n":2}', isObject);
    expect(r.values).toEqual([{ n: 1 }, { n: 2 }]);
    expect(r.badLines).toEqual([3, 4]);
  });
});
