import { describe, expect, it } from 'vitest';
import { parseFastReduceArgs } from '../../../src/fast/reduce.js';

// Which `cordon reduce …` forms bin/run.cjs sends past oclif; everything else oclif parses (and
// refuses with its own messages).

describe('fast route of reduce', () => {
  it('takes --session, --all, --json, --jsonl and --db in any order, values spaced or after =', () => {
    expect(parseFastReduceArgs([], {})).toEqual({ all: false, json: false, jsonl: false });
    expect(parseFastReduceArgs(['--session', 'abc', '--json'], {})).toEqual({ session: 'abc', all: false, json: true, jsonl: false });
    expect(parseFastReduceArgs(['--jsonl', '--all', '--db=/tmp/t.sqlite3'], {})).toEqual({ all: true, json: false, jsonl: true, db: '/tmp/t.sqlite3' });
    expect(parseFastReduceArgs(['--db', 'postgres://u@h/db', '--session=x y'], {})).toEqual({ session: 'x y', all: false, json: false, jsonl: false, db: 'postgres://u@h/db' });
  });

  it('leaves help, conflicts, repeats, unknown flags, empty or flag-like values and CORDON_CONTENT_TYPE to oclif', () => {
    for (const args of [
      ['--help'],
      ['-h'],
      ['--session', 'a', '--all'],
      ['--json', '--jsonl'],
      ['--all', '--all'],
      ['--session', 'a', '--session', 'b'],
      ['--session'],
      ['--session', '--json'],
      ['--session='],
      ['--db', ''],
      ['--bogus'],
      ['abc'],
    ]) {
      expect(parseFastReduceArgs(args, {}), args.join(' ')).toBeUndefined();
    }
    expect(parseFastReduceArgs(['--all'], { CORDON_CONTENT_TYPE: 'json' })).toBeUndefined();
  });
});
