import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { hiddenPathsFromIndex, readIndexFacts } from '../../src/envelope/evidence/index-file.js';
import { readHiddenPaths } from '../../src/envelope/evidence/index-state.js';

// The index file read directly must name exactly the paths `git ls-files -v` flags, in every
// index version git writes, or decline (undefined) so the audit asks git instead.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-index-file-');
});
afterEach(() => sandbox.cleanup());

function repo(objectFormat: 'sha1' | 'sha256' = 'sha1'): { dir: string; git: (...args: string[]) => string } {
  const dir = sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: sandbox.env, encoding: 'utf8' });
  git('init', '-q', `--object-format=${objectFormat}`);
  return { dir, git };
}

/** What `git ls-files -z -v` says, through the audit's own reader. */
const fromGit = (dir: string) => readHiddenPaths({ cwd: dir, env: sandbox.env });

describe('hiddenPathsFromIndex', () => {
  it.each([2, 3, 4])('index version %i: the same flagged paths as git ls-files -v, in index order', async (version) => {
    const { dir, git } = repo();
    const names = ['a.txt', 'dir/b.txt', 'dir/c.txt', 'dir/sub/d.txt', 'ünï côdé.txt', 'z.txt'];
    for (const name of names) {
      execFileSync('mkdir', ['-p', join(dir, name, '..')]);
      writeFileSync(join(dir, name), `${name}\n`);
    }
    git('add', '-A');
    // A name of 0xFFF bytes or more (its length field saturates): an index entry only, as no
    // file system takes such a path.
    const long = Array.from({ length: 22 }, (_, i) => `${i}`.padEnd(200, 'n')).join('/');
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, env: sandbox.env, input: 'x\n', encoding: 'utf8' }).trim();
    git('update-index', '--add', '--cacheinfo', `100644,${blob},${long}`);
    git('update-index', '--assume-unchanged', 'dir/b.txt', long);
    if (version >= 3) git('update-index', '--skip-worktree', 'dir/sub/d.txt', 'ünï côdé.txt');
    git('update-index', `--index-version=${version}`);
    const expected = await fromGit(dir);
    expect(expected.length).toBe(version >= 3 ? 4 : 2);
    expect(hiddenPathsFromIndex(join(dir, '.git/index'), 20)).toEqual(expected);
    // Read through windows smaller than one entry, or ending inside one: the same answer.
    for (const window of [1, 7, 64, 100, 333, 4096]) expect(hiddenPathsFromIndex(join(dir, '.git/index'), 20, window)).toEqual(expected);
  });

  it('an index larger than the read window, in every version: the same flagged paths as git', async () => {
    const { dir, git } = repo();
    // 3,000 entries (about 250 KB in version 2) read through a 16 KiB window: thousands of edges.
    const paths = Array.from({ length: 3000 }, (_, i) => `d${i % 37}/sub${i % 5}/file-${i}-${'x'.repeat(i % 23)}.txt`);
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, env: sandbox.env, input: 'x\n', encoding: 'utf8' }).trim();
    execFileSync('git', ['update-index', '--add', '--index-info'], { cwd: dir, env: sandbox.env, input: paths.map((p) => `100644 ${blob}\t${p}\n`).join('') });
    git('update-index', '--assume-unchanged', paths[0]!, paths[1499]!, paths[2999]!);
    for (const version of [2, 3, 4]) {
      git('update-index', `--index-version=${version}`);
      if (version === 3) git('update-index', '--skip-worktree', paths[700]!);
      const expected = await fromGit(dir);
      expect(expected.length).toBe(version >= 3 ? 4 : 3);
      expect(hiddenPathsFromIndex(join(dir, '.git/index'), 20, 16 * 1024)).toEqual(expected);
      expect(hiddenPathsFromIndex(join(dir, '.git/index'), 20)).toEqual(expected);
    }
  });

  it('a SHA-256 repository (32-byte object names)', async () => {
    const { dir, git } = repo('sha256');
    writeFileSync(join(dir, 'a'), 'a\n');
    writeFileSync(join(dir, 'b'), 'b\n');
    git('add', '-A');
    git('update-index', '--skip-worktree', 'b');
    expect(hiddenPathsFromIndex(join(dir, '.git/index'), 32)).toEqual(await fromGit(dir));
    expect(hiddenPathsFromIndex(join(dir, '.git/index'), 32)).toEqual(['b']);
  });

  it('no index yet: none hidden; a split index, a sparse index, a wrong hash size or garbage: declined', () => {
    const { dir, git } = repo();
    expect(hiddenPathsFromIndex(join(dir, '.git/index'), 20)).toEqual([]);
    writeFileSync(join(dir, 'a'), 'a\n');
    git('add', '-A');
    expect(hiddenPathsFromIndex(join(dir, '.git/index'), 32)).toBeUndefined();
    git('update-index', '--split-index');
    expect(hiddenPathsFromIndex(join(dir, '.git/index'), 20)).toBeUndefined();
    const junk = join(dir, 'junk');
    writeFileSync(junk, 'DIRC\0\0\0\x02\0\0\0\x05short');
    expect(hiddenPathsFromIndex(junk, 20)).toBeUndefined();
    writeFileSync(junk, 'not an index at all, not at all');
    expect(hiddenPathsFromIndex(junk, 20)).toBeUndefined();
  });

  it('an index file of 2 GiB or more is declined (left to git ls-files -v), whatever its first bytes say', () => {
    const { dir, git } = repo();
    writeFileSync(join(dir, 'a'), 'a\n');
    git('add', '-A');
    // A sparse copy of a real index, grown past 2 GiB and 4 GiB: its header and entries are intact.
    for (const size of [2 ** 31 + 20, 2 ** 32 + 20 + 4096]) {
      const big = join(dir, `big-${size}`);
      copyFileSync(join(dir, '.git/index'), big);
      truncateSync(big, size);
      expect(hiddenPathsFromIndex(big, 20), String(size)).toBeUndefined();
      rmSync(big);
    }
  });

  it('a sparse index (sparse directory entries) is declined', () => {
    const { dir, git } = repo();
    for (const name of ['in/a', 'out/b', 'out/c']) {
      execFileSync('mkdir', ['-p', join(dir, name, '..')]);
      writeFileSync(join(dir, name), 'x\n');
    }
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
    git('sparse-checkout', 'set', '--cone', '--sparse-index', 'in');
    expect(hiddenPathsFromIndex(join(dir, '.git/index'), 20)).toBeUndefined();
  });

  it('fuzz: any truncation or corruption of a real index is declined or read, never thrown', () => {
    const { dir, git } = repo();
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `f${i}`), `${i}\n`);
    git('add', '-A');
    git('update-index', '--assume-unchanged', 'f3');
    const real = execFileSync('cat', [join(dir, '.git/index')]);
    const file = join(dir, 'mutated');
    fc.assert(
      fc.property(fc.nat(real.length), fc.nat(255), fc.boolean(), fc.integer({ min: 1, max: 2048 }), (at, byte, truncate, window) => {
        const copy = Buffer.from(truncate ? real.subarray(0, at) : real);
        if (!truncate) copy[Math.min(at, copy.length - 1)] = byte;
        writeFileSync(file, copy);
        const got = hiddenPathsFromIndex(file, 20, window);
        expect(got === undefined || Array.isArray(got)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('readIndexFacts: the cache-tree root', () => {
  it.each([
    [2, 'sha1'],
    [3, 'sha1'],
    [4, 'sha1'],
    [4, 'sha256'],
  ] as const)('index version %i (%s): the root tree after commit and reset, none once an entry is staged', (version, format) => {
    const { dir, git } = repo(format);
    const hashBytes = format === 'sha256' ? 32 : 20;
    for (const name of ['a.txt', 'dir/b.txt', 'dir/sub/c.txt']) {
      execFileSync('mkdir', ['-p', join(dir, name, '..')]);
      writeFileSync(join(dir, name), `${name}\n`);
    }
    git('config', 'index.version', String(version));
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'c');
    const tree = git('rev-parse', 'HEAD^{tree}').trim();
    const index = join(dir, '.git', 'index');
    for (const window of [7, 64, 256 * 1024]) expect(readIndexFacts(index, hashBytes, window)?.tree).toBe(tree);
    writeFileSync(join(dir, 'dir/b.txt'), 'staged\n');
    git('add', 'dir/b.txt');
    expect(readIndexFacts(index, hashBytes)?.tree).toBeUndefined();
    // A mixed reset leaves the root invalid (the audit then runs the index diff); a hard one
    // writes the cache-tree of HEAD again.
    git('reset', '-q');
    expect(readIndexFacts(index, hashBytes)?.tree).toBeUndefined();
    git('reset', '-q', '--hard');
    expect(readIndexFacts(index, hashBytes)?.tree).toBe(tree);
  });
});
