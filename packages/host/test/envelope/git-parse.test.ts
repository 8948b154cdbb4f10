import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/index.js';
import { DiffParser, isHiddenByIndexFlag, parseIndexEntry, parseNumstat } from '../../src/envelope/git/parse.js';
import { git, gitRecords } from '../../src/envelope/git/run-git.js';
import { tempDir, write } from './support.js';

const b = (s: string | number[]) => (typeof s === 'string' ? Buffer.from(s, 'latin1') : Buffer.from(s));

describe('git record parsers (the BEKO2210/SkillQuarry cordon H16, H22)', () => {
  it('H16: numstat records, binary records, and malformed ones', () => {
    expect(parseNumstat(b('1\t2\ta'))).toEqual({ path: 'a', added: 1, deleted: 2 });
    expect(parseNumstat(b('-\t-\tb.bin'))).toEqual({ path: 'b.bin', added: null, deleted: null });
    expect(parseNumstat(b([0x30, 9, 0x30, 9, 0x78, 0xff]))).toEqual({ path: 'x\udcff', added: 0, deleted: 0 });
    for (const bad of ['bad', '1\t2\t', 'x\t2\ta', '1\t-\ta']) expect(() => parseNumstat(b(bad)), bad).toThrow(expect.objectContaining({ code: ERROR_CODES.REPO_ERROR }));
  });

  it('parses the combined --raw --numstat stream', () => {
    const p = new DiffParser();
    for (const r of [':100644 100644 aaaa 0000 M', 'src/a.py', ':000000 160000 0000 bbbb A', 'sub', '3\t1\tsrc/a.py', '1\t0\tsub']) p.push(b(r));
    const entries = p.finish();
    expect(entries.get('src/a.py')).toMatchObject({ oldMode: '100644', newMode: '100644', status: 'M', added: 3, deleted: 1, counted: true });
    expect(entries.get('sub')).toMatchObject({ newMode: '160000', status: 'A' });
    const q = new DiffParser();
    q.push(b(':100644 100644 aaaa 0000 M'));
    expect(() => q.finish()).toThrow(/record without a path/);
    expect(() => new DiffParser().push(b('1\t1\tnot-in-raw'))).toThrow(/without a raw record/);
  });

  it('pushSpan reads records in place, as push reads them one Buffer each', () => {
    const records = [':100644 100644 aaaa 0000 M', 'src/a.py', ':100644 000000 aaaa 0000 D', 'gone\t\u00e9', '3\t1\tsrc/a.py', '0\t2\tgone\t\u00e9'];
    const one = new DiffParser();
    for (const r of records) one.push(Buffer.from(r));
    // The same records side by side in one chunk, NUL-separated, read as spans.
    const chunk = Buffer.from(`junk\0${records.join('\0')}\0`);
    const spans = new DiffParser();
    let start = 5;
    for (let nul = chunk.indexOf(0, start); nul !== -1; nul = chunk.indexOf(0, start)) {
      spans.pushSpan(chunk, start, nul);
      start = nul + 1;
    }
    expect([...spans.finish()]).toEqual([...one.finish()]);
    expect(spans.entries.get('gone\t\u00e9')).toMatchObject({ status: 'D', added: 0, deleted: 2 });
  });

  it('numstat counts: one binary side alone, signs, spaces and empty counts are malformed', () => {
    for (const bad of ['-\t5\tx', '5\t-\tx', '+1\t2\tx', ' 1\t2\tx', '1 \t2\tx', '\t2\tx', '1\t\tx', '--\t-\tx', '-\t-', '12']) {
      expect(() => parseNumstat(b(bad)), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: ERROR_CODES.REPO_ERROR }));
    }
    expect(parseNumstat(b('007\t0\ta\tb'))).toEqual({ path: 'a\tb', added: 7, deleted: 0 });
    expect(parseNumstat(b('123456789\t987654321\tbig'))).toEqual({ path: 'big', added: 123456789, deleted: 987654321 });
  });

  it('H22: ls-files -s -v records; a tag without a path is malformed', () => {
    expect(parseIndexEntry(b('h 100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 0\tREADME'))).toMatchObject({ tag: 'h', mode: '100644', stage: 0, path: 'README' });
    expect(isHiddenByIndexFlag({ tag: 'h' })).toBe(true);
    expect(isHiddenByIndexFlag({ tag: 'S' })).toBe(true);
    expect(isHiddenByIndexFlag({ tag: 's' })).toBe(true);
    expect(isHiddenByIndexFlag({ tag: 'H' })).toBe(false);
    for (const bad of ['S', 'S 100644 abc 0', 'S 100644 abc 0\t', 'nonsense']) expect(() => parseIndexEntry(b(bad)), bad).toThrow(expect.objectContaining({ code: ERROR_CODES.REPO_ERROR }));
  });
});

describe('git runner (the BEKO2210/SkillQuarry cordon H15)', () => {
  /** A stand-in git that misbehaves on purpose. */
  function fakeGit(script: string): string {
    const dir = tempDir('fakegit');
    write(dir, { git: `#!/bin/sh\n${script}\n` });
    chmodSync(join(dir, 'git'), 0o755);
    return join(dir, 'git');
  }

  it('a non-zero exit is a repository error carrying git stderr', async () => {
    const inv = { cwd: tempDir(), env: process.env, gitBinary: fakeGit('echo "fatal: broken" >&2; exit 9') };
    await expect(git(inv, ['status'])).rejects.toMatchObject({ code: ERROR_CODES.REPO_ERROR, message: 'git status exited 9: fatal: broken' });
  });

  it('a timeout is a repository error', async () => {
    const inv = { cwd: tempDir(), env: process.env, gitBinary: fakeGit('sleep 5'), timeoutMs: 100 };
    await expect(git(inv, ['diff'])).rejects.toMatchObject({ code: ERROR_CODES.REPO_ERROR, message: 'git diff timed out after 100 ms' });
  });

  it('a git that cannot start is a repository error', async () => {
    await expect(git({ cwd: tempDir(), env: process.env, gitBinary: '/nonexistent/git' }, ['status'])).rejects.toMatchObject({ code: ERROR_CODES.REPO_ERROR });
  });

  it('streams far more than the reference 4 MiB cap record by record (no size ceiling)', async () => {
    // 300,000 records of 30 bytes each: about 9 MB.
    const inv = { cwd: tempDir(), env: process.env, gitBinary: fakeGit(`awk 'BEGIN { for (i = 0; i < 300000; i++) printf "src/dir%06d/file-%08d.txt%c", i % 1000, i, 0 }'`) };
    let count = 0;
    let bytes = 0;
    await gitRecords(inv, ['ls-files', '-z'], (r) => {
      count += 1;
      bytes += r.length + 1;
    });
    expect(count).toBe(300_000);
    expect(bytes).toBeGreaterThan(4 * 1024 * 1024);
  });

  it('a stream ending inside a record is an error', async () => {
    const inv = { cwd: tempDir(), env: process.env, gitBinary: fakeGit(`printf 'a\\0b'`) };
    await expect(gitRecords(inv, ['ls-files', '-z'], () => undefined)).rejects.toThrow(/missing NUL terminator/);
  });
});
