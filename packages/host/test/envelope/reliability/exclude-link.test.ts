import { lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/errors/index.js';
import { check } from '../../../src/envelope/check.js';
import { reset } from '../../../src/envelope/reset.js';
import { armWith, git, repo, tempDir, write } from '../support.js';

/**
 * Issue 13 item 12: when `.git/info/exclude` is a symbolic link (to a shared exclude file), arm
 * writes the `/.cordon/` line into the file the link names, atomically beside that target, and the
 * link stays a link; when it cannot, arm says why (exit 2) and nothing is armed.
 */

const SHARED = '# shared excludes\n*.log\n';

function linkedExclude(dir: string, makeLink: (exclude: string, shared: string) => void): { exclude: string; shared: string } {
  const shared = join(tempDir('shared'), 'exclude');
  writeFileSync(shared, SHARED, { mode: 0o640 });
  const exclude = join(dir, '.git/info/exclude');
  rmSync(exclude, { force: true });
  makeLink(exclude, shared);
  return { exclude, shared };
}

describe('a symlinked .git/info/exclude', () => {
  const shapes: Array<[string, (exclude: string, shared: string) => void]> = [
    ['absolute link', (e, s) => symlinkSync(s, e)],
    ['relative link', (e, s) => symlinkSync(relative(join(e, '..'), s), e)],
    ['chain of two links', (e, s) => {
      const hop = join(tempDir('hop'), 'exclude-hop');
      symlinkSync(s, hop);
      symlinkSync(hop, e);
    }],
  ];
  for (const [name, makeLink] of shapes) {
    it(`${name}: the line lands in the shared file (mode kept), the link stays, check and reset work`, async () => {
      const dir = repo({ 'src/a.txt': 'a\n' });
      const { exclude, shared } = linkedExclude(dir, makeLink);
      const link = readlinkSync(exclude);
      await armWith(dir, { allow: ['src/**'] });
      expect(lstatSync(exclude).isSymbolicLink()).toBe(true);
      expect(readlinkSync(exclude)).toBe(link);
      expect(readFileSync(shared, 'utf8')).toBe(`${SHARED}/.cordon/\n`);
      expect(statSync(shared).mode & 0o777).toBe(0o640);
      // .cordon/ is hidden from git status through the shared file.
      write(dir, { 'src/a.txt': 'b\n' });
      expect(git(dir, 'status', '--porcelain')).toBe(' M src/a.txt\n');
      expect((await check({ repo: dir })).audit.passed).toBe(true);
      await reset(dir);
      // Arming again does not add the line twice.
      git(dir, 'checkout', '--', 'src/a.txt');
      await armWith(dir, { allow: ['src/**'] });
      expect(readFileSync(shared, 'utf8')).toBe(`${SHARED}/.cordon/\n`);
    });
  }

  it('a dangling link whose directory exists: the target is created with the line, the link stays', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    const target = join(tempDir('dangling'), 'exclude');
    const exclude = join(dir, '.git/info/exclude');
    rmSync(exclude, { force: true });
    symlinkSync(target, exclude);
    await armWith(dir, { allow: ['src/**'] });
    expect(lstatSync(exclude).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('/.cordon/\n');
  });

  it('when the line cannot land in the target (missing directory, a directory, a read-only directory), arm says why and arms nothing', async () => {
    const cases: Array<[string, (exclude: string) => void, RegExp]> = [
      ['target directory missing', (e) => symlinkSync(join(tempDir('gone'), 'no/such/dir/exclude'), e), /cannot write .*exclude \(a symbolic link to .*no\/such\/dir\/exclude\).*ENOENT/],
      ['target is a directory', (e) => {
        const d = join(tempDir('isdir'), 'exclude');
        mkdirSync(d);
        symlinkSync(d, e);
      }, /cannot read .*exclude.*(not a regular file \(a directory\)|EISDIR)/],
    ];
    if (process.getuid?.() !== 0) {
      cases.push(['read-only target directory', (e) => {
        const d = tempDir('ro');
        writeFileSync(join(d, 'exclude'), SHARED);
        chmodSync(d, 0o555);
        symlinkSync(join(d, 'exclude'), e);
      }, /cannot write .*EACCES/]);
    }
    for (const [name, plant, why] of cases) {
      const dir = repo({ 'src/a.txt': 'a\n' });
      const exclude = join(dir, '.git/info/exclude');
      rmSync(exclude, { force: true });
      plant(exclude);
      let error: unknown;
      try {
        await armWith(dir, { allow: ['src/**'] });
      } catch (e) {
        error = e;
      }
      expect(error, name).toMatchObject({ code: ERROR_CODES.REPO_ERROR, exit: 2 });
      expect((error as Error).message, `${name}: ${(error as Error).message}`).toMatch(why);
      expect(lstatSync(exclude).isSymbolicLink(), name).toBe(true);
      expect(() => lstatSync(join(dir, '.cordon')), name).toThrow(/ENOENT/);
    }
  });
});
