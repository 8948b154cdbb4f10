import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateDirect } from '../../src/envelope/git/locate-direct.js';
import { discoverRepoAndHead } from '../../src/envelope/git/repo.js';
import { armWith, checkIn, commitAll, git, repo, tempDir } from './support.js';

// `check` reads the common repository layout from its files instead of starting `git rev-parse`
// (src/envelope/git/locate-direct.ts): where it answers, it must answer exactly as git does;
// everywhere else it must leave the question to git.
const agrees = async (dir: string) => {
  const direct = locateDirect(dir);
  expect(direct, `${dir}: read directly`).toBeDefined();
  expect(direct).toEqual(await discoverRepoAndHead(dir));
};

describe('locating a repository without git', () => {
  it('answers as git rev-parse does: a branch (loose, then packed, then loose again over a stale packed line), a nested branch name, a detached HEAD', async () => {
    const dir = repo();
    await agrees(dir);
    git(dir, 'pack-refs', '--all');
    rmSync(join(dir, '.git', 'refs', 'heads', 'main'), { force: true });
    await agrees(dir);
    writeFileSync(join(dir, 'more.txt'), 'more\n');
    commitAll(dir);
    // The new loose ref now disagrees with the packed line: the loose one is HEAD.
    await agrees(dir);
    git(dir, 'checkout', '-q', '-b', 'feature/deep/name');
    writeFileSync(join(dir, 'deep.txt'), 'x\n');
    commitAll(dir);
    await agrees(dir);
    git(dir, 'checkout', '-q', '--detach', 'HEAD~1');
    await agrees(dir);
  });

  it('leaves a branch with a non-ASCII name to git, even with a stale packed line for it', async () => {
    const dir = repo();
    git(dir, 'checkout', '-q', '-b', 'straße');
    git(dir, 'pack-refs', '--all');
    writeFileSync(join(dir, 'later.txt'), 'later\n');
    commitAll(dir);
    // The loose ref is newer than the packed line: only git may answer.
    expect(locateDirect(dir)).toBeUndefined();
    expect((await discoverRepoAndHead(dir)).head).toBe(git(dir, 'rev-parse', 'HEAD').trim());
  });

  it('leaves every other layout to git', () => {
    const unborn = tempDir('unborn');
    git(unborn, 'init', '-q', '-b', 'main');
    expect(locateDirect(unborn)).toBeUndefined();

    const dir = repo();
    // A subdirectory, a path through a symbolic link, a linked work tree.
    expect(locateDirect(join(dir, 'src'))).toBeUndefined();
    const link = join(tempDir('links'), 'via-link');
    symlinkSync(dir, link);
    expect(locateDirect(link)).toBeUndefined();
    const linked = join(tempDir('wt'), 'linked');
    git(dir, 'worktree', 'add', '-q', linked);
    expect(locateDirect(linked)).toBeUndefined();
    // Config that moves the work tree, includes other config, or uses an extension.
    for (const [key, value] of [
      ['core.worktree', '/elsewhere'],
      ['include.path', '/dev/null'],
      ['extensions.noop', 'true'],
      ['core.bare', 'true'],
    ] as const) {
      const other = repo();
      git(other, 'config', key, value);
      expect(locateDirect(other), key).toBeUndefined();
    }
    const future = repo();
    git(future, 'config', 'core.repositoryformatversion', '2');
    expect(locateDirect(future)).toBeUndefined();
    // HEAD naming something that is not a branch holding a commit id.
    const odd = repo();
    writeFileSync(join(odd, '.git', 'HEAD'), 'ref: refs/heads/../../config\n');
    expect(locateDirect(odd)).toBeUndefined();
    writeFileSync(join(odd, '.git', 'HEAD'), 'ref: refs/tags/v1\n');
    expect(locateDirect(odd)).toBeUndefined();
    mkdirSync(join(odd, '.git', 'refs', 'heads', 'dir'));
    writeFileSync(join(odd, '.git', 'HEAD'), 'ref: refs/heads/dir\n');
    expect(locateDirect(odd)).toBeUndefined();
    writeFileSync(join(odd, '.git', 'refs', 'heads', 'main'), 'ref: refs/heads/other\n');
    writeFileSync(join(odd, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(locateDirect(odd)).toBeUndefined();
    // Not a git directory git would take.
    const broken = repo();
    rmSync(join(broken, '.git', 'refs'), { recursive: true });
    expect(locateDirect(broken)).toBeUndefined();
  });

  it('check gives the same verdict where the read answers and where git is asked', async () => {
    const verdicts: unknown[] = [];
    for (const leftToGit of [false, true]) {
      const dir = repo();
      if (leftToGit) git(dir, 'config', 'include.path', '/dev/null');
      expect(locateDirect(dir) === undefined).toBe(leftToGit);
      await armWith(dir, { allow: ['src/**'] });
      writeFileSync(join(dir, 'src', 'app.py'), 'print("changed")\n');
      writeFileSync(join(dir, 'outside.txt'), 'x\n');
      const { audit } = await checkIn(dir);
      verdicts.push({ passed: audit.passed, violations: audit.violations.map((v) => v.code), head_changed: audit.head_changed, metrics: audit.metrics });
    }
    expect(verdicts[0]).toEqual(verdicts[1]);
    expect(verdicts[0]).toMatchObject({ passed: false, head_changed: false });
  });
});
