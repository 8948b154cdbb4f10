import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo } from '../../../../test/support/git.js';
import { unprivilegedRepo } from '../../../../test/support/unprivileged.js';
import { realGitNames } from '../../src/envelope/git/private-names.js';

// Every audit git command runs through cordon's private git directory (git/shadow.ts), and git's
// errors named it: `fatal: /tmp/cordon-git-…/index: index file smaller than expected`, `not a
// git repository: '/tmp/cordon-git-…'`, a directory the user never saw. They name the user's
// git directory and index now (git/private-names.ts).

let sandbox: Sandbox;
let root: string;
beforeEach(() => {
  sandbox = makeSandbox('cordon-errnames-');
  root = mkdtempSync(join(tmpdir(), 'cordon-errnames-nobody-'));
});
afterEach(async () => {
  sandbox.cleanup();
  await runProcess(['chmod', '-R', 'u+rwX', root]);
  rmSync(root, { recursive: true, force: true });
});
const cordon = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) => runCordon(args, { cwd, env: { ...sandbox.env, CORDON_SAMPLER: 'off', ...env } });

describe('realGitNames', () => {
  const names = { dir: '/tmp/cordon-git-1-2-abc', gitDir: '/work/repo/.git', indexFile: '/work/repo/.git/index' };

  it('names the directory, its index and a shared index as the real ones; cordon\'s own files and other names stay', () => {
    expect(realGitNames("fatal: not a git repository: '/tmp/cordon-git-1-2-abc'", names)).toBe("fatal: not a git repository: '/work/repo/.git'");
    expect(realGitNames("fatal: not a git repository: '/tmp/cordon-git-1-2-abc/'", names)).toBe("fatal: not a git repository: '/work/repo/.git'");
    expect(realGitNames('fatal: /tmp/cordon-git-1-2-abc/index: index file smaller than expected', names)).toBe('fatal: /work/repo/.git/index: index file smaller than expected');
    expect(realGitNames("error: could not open '/tmp/cordon-git-1-2-abc/sharedindex.0a1b'", names)).toBe("error: could not open '/work/repo/.git/sharedindex.0a1b'");
    // The lock is taken beside cordon's copy, in the temp directory: that is where it failed.
    const own = "fatal: Unable to create '/tmp/cordon-git-1-2-abc/index.lock': No space left on device\nwarning: unable to access '/tmp/cordon-git-1-2-abc/info/exclude'";
    expect(realGitNames(own, names)).toBe(own);
    expect(realGitNames("'/tmp/cordon-git-1-2-abcd/index' and /tmp/cordon-git-1-2-abc.x", names)).toBe("'/tmp/cordon-git-1-2-abcd/index' and /tmp/cordon-git-1-2-abc.x");
  });

  it('knows the private directory by its resolved path too (a temp directory reached through a link)', () => {
    const real = sandbox.dir('real-tmp');
    mkdirSync(join(real, 'cordon-git-x'));
    symlinkSync(real, join(sandbox.root, 'link-tmp'));
    const linked = { ...names, dir: join(sandbox.root, 'link-tmp', 'cordon-git-x') };
    expect(realGitNames(`fatal: ${realpathSync(real)}/cordon-git-x/index: bad signature 0x00000000`, linked)).toBe('fatal: /work/repo/.git/index: bad signature 0x00000000');
  });
});

describe('git errors of an audit', () => {
  it('a corrupt index: check names the repository\'s index file, not the private copy, on both routes (exit 2)', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    expect((await cordon(['arm', 'x', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    truncateSync(join(repo, '.git/index'), 10);
    for (const env of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
      const r = await cordon(['check'], repo, env);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`fatal: ${realpathSync(repo)}/.git/index: index file smaller than expected`);
      expect(r.stderr).not.toContain('cordon-git-');
    }
  });

  it('a linked work tree and a --separate-git-dir repository: the index named is the one that work tree uses', async () => {
    const main = makeRepo(sandbox.dir('main'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const linked = join(sandbox.root, 'linked');
    git(main, ['worktree', 'add', '-q', linked], sandbox.env);
    const separateGit = join(sandbox.root, 'elsewhere.git');
    const separate = sandbox.dir('separate');
    git(separate, ['init', '-q', '-b', 'main', `--separate-git-dir=${separateGit}`], sandbox.env);
    git(separate, ['commit', '-q', '--allow-empty', '-m', 'initial'], sandbox.env);
    for (const [work, index] of [
      [linked, join(realpathSync(main), '.git/worktrees/linked/index')],
      [separate, join(realpathSync(separateGit), 'index')],
    ] as const) {
      expect((await cordon(['arm', 'x', '--allow', 'src/**'], work)).exitCode).toBe(0);
      truncateSync(index, 10);
      const r = await cordon(['check'], work);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`fatal: ${index}: index file smaller than expected`);
      expect(r.stderr).not.toContain('cordon-git-');
    }
  });

  it('objects nobody may read: "not a git repository" names the repository\'s git directory (exit 2)', async () => {
    const repo = await unprivilegedRepo(root, { 'src/a.txt': 'a\n' });
    expect((await repo.cordon(['arm', 'x', '--allow', 'src/**'])).exitCode).toBe(0);
    chmodSync(join(repo.repo, '.git/objects'), 0);
    const r = await repo.cordon(['check']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain(`not a git repository: '${realpathSync(repo.repo)}/.git'`);
    expect(r.stderr).not.toContain('cordon-git-');
  });
});
