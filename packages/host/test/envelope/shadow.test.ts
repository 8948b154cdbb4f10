import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdsIgnorePatterns } from '../../src/envelope/git/ignore-oracle.js';
import { discoverRepo, discoverRepoAndHead } from '../../src/envelope/git/repo.js';
import { git as runGit } from '../../src/envelope/git/run-git.js';
import { createShadowGit, readGitRules } from '../../src/envelope/git/shadow.js';
import { startEarly } from '../../src/envelope/audit/start-git.js';
import { loadEnvelope } from '../../src/envelope/state/store.js';
import { acquireLock } from '../../src/envelope/lock.js';
import { ERROR_CODES } from '../../src/errors/index.js';
import { armWith, checkIn, codes, git, repo, tempDir, write } from './support.js';

// The private git directory every audit command runs in (git/shadow.ts), and what the audit
// skips when it cannot matter.

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('the private git directory', () => {
  it('shares the index file by a hard link, and a write through it never reaches the real index', async () => {
    const dir = repo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const loc = await discoverRepo(dir);
    const before = { sha: digest(loc.indexFile), ino: statSync(loc.indexFile).ino };
    const shadow = createShadowGit(loc, await readGitRules(loc), git(dir, 'rev-parse', 'HEAD').trim());
    try {
      const shadowIndex = join(shadow.dir, 'index');
      // Same file system here (both under the temp dir): linked, not copied.
      expect(statSync(shadowIndex).ino).toBe(before.ino);
      // git writes an index as index.lock renamed over it: the private name gets a new file.
      write(dir, { 'a.txt': 'a changed\n' });
      await runGit(shadow.inv, ['update-index', '--add', 'a.txt']);
      expect(statSync(shadowIndex).ino).not.toBe(before.ino);
      expect(statSync(loc.indexFile).ino).toBe(before.ino);
      expect(digest(loc.indexFile)).toBe(before.sha);
    } finally {
      shadow.dispose();
    }
  });

  it('a check leaves the real index exactly as it was', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/c.txt': 'c\n' });
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'src/a.txt': 'a changed\n', 'src/new.txt': 'new\n' });
    // Same content, new stat data: git's refresh would record it if it could write.
    writeFileSync(join(dir, 'src/b.txt'), 'b\n');
    const index = join(dir, '.git/index');
    const before = { sha: digest(index), ino: statSync(index).ino, mtimeMs: statSync(index).mtimeMs };
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['src/a.txt', 'src/new.txt']);
    expect({ sha: digest(index), ino: statSync(index).ino, mtimeMs: statSync(index).mtimeMs }).toEqual(before);
  });
});

describe('ignore rules', () => {
  it('holdsIgnorePatterns: blank lines, comments and the /.cordon/ line hold no pattern; anything else does', () => {
    expect(holdsIgnorePatterns([null, '', '\n\n', '# a comment\n#another\n', '   \n', '/.cordon/\n'])).toBe(false);
    expect(holdsIgnorePatterns(['# git ls-files --others --exclude-from=.git/info/exclude\n# *~\n/.cordon/\n'])).toBe(false);
    for (const text of ['*.log\n', '# c\nbuild/\n', '\\#not-a-comment\n', '\t\n', '/.cordon/\r\n', '!keep\n', ' x\n', '/.cordon\n']) {
      expect(holdsIgnorePatterns([null, '', text]), JSON.stringify(text)).toBe(true);
    }
  });

  describe('git check-ignore runs only when an arm-time rule could ignore something', () => {
    const path = process.env.PATH;
    afterEach(() => {
      process.env.PATH = path;
    });

    /** Puts a `git` on PATH that logs its subcommand to the returned file, then runs the real git. */
    function loggingGit(): string {
      const bin = tempDir('bin');
      const log = join(tempDir('log'), 'git.log');
      const real = runGitPath();
      writeFileSync(join(bin, 'git'), `#!/bin/sh\nfor a in "$@"; do case "$a" in -*) ;; *) echo "$a" >> '${log}'; break ;; esac; done\nexec '${real}' "$@"\n`);
      chmodSync(join(bin, 'git'), 0o755);
      writeFileSync(log, '');
      process.env.PATH = `${bin}:${path}`;
      return log;
    }

    it('no rule at all: untracked files are counted without asking git', async () => {
      const dir = repo({ 'src/a.txt': 'a\n' });
      await armWith(dir, { allow: ['src/**'] });
      write(dir, { 'src/new/one.txt': '1\n', 'src/new/deeper/two.txt': '2\n2\n', 'src/three.txt': '3\n' });
      const log = loggingGit();
      const { audit } = await checkIn(dir);
      expect(audit.changed_files).toEqual(['src/new/deeper/two.txt', 'src/new/one.txt', 'src/three.txt']);
      expect(audit.metrics.added_lines).toBe(4);
      const commands = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      expect(commands).toContain('diff');
      expect(commands).not.toContain('check-ignore');
    });

    it('the index diff runs only when the index is not exactly the baseline tree', async () => {
      const dir = repo({ 'src/a.txt': 'a\n', 'README.md': 'r\n' });
      await armWith(dir, { allow: ['src/**'] });
      write(dir, { 'src/a.txt': 'b\n' });
      let log = loggingGit();
      expect((await checkIn(dir)).audit.changed_files).toEqual(['src/a.txt']);
      const diffs = (file: string) => readFileSync(file, 'utf8').split('\n').filter((c) => c === 'diff').length;
      expect(diffs(log)).toBe(1);
      write(dir, { 'README.md': 'staged\n' });
      git(dir, 'add', 'README.md');
      write(dir, { 'README.md': 'r\n' });
      log = loggingGit();
      expect((await checkIn(dir)).audit.changed_files).toEqual(['README.md', 'src/a.txt']);
      expect(diffs(log)).toBe(2);
    });

    it('a .gitignore at arm time: git is asked, and what it ignores is judged as ignored', async () => {
      const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': '*.log\n' });
      await armWith(dir, { allow: ['src/**'] });
      write(dir, { 'src/new/one.txt': '1\n', 'src/new/debug.log': 'x\n' });
      const log = loggingGit();
      const { audit } = await checkIn(dir);
      expect(audit.changed_files).toEqual(['src/new/one.txt']);
      expect(audit.ignored_changes).toEqual([{ path: 'src/new/debug.log', change: 'new' }]);
      expect(readFileSync(log, 'utf8').split('\n')).toContain('check-ignore');
    });
  });
});

/** The git executable the logging wrapper hands over to. */
function runGitPath(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    try {
      if (statSync(join(dir, 'git')).isFile()) return join(dir, 'git');
    } catch {
      // not in this directory
    }
  }
  throw new Error('git is not on PATH');
}

describe('starting the audit\'s git commands before the envelope is read (start-git.ts)', () => {
  const tmp = process.env.TMPDIR;
  afterEach(() => {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  });

  /** A private TMPDIR, so the private git directories this test makes can be counted. */
  function privateTmp(): string {
    const dir = join(tempDir('tmp'), 'tmp');
    mkdirSync(dir);
    process.env.TMPDIR = dir;
    return dir;
  }

  it('adopted only when the layout, baseline and arm-time rules are the validated ones', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'src/a.txt': 'b\n', 'src/new.txt': 'n\n' });
    const loc = await discoverRepo(dir);
    const { config, snapshot } = loadEnvelope(loc);
    const tmpdir = privateTmp();

    const early = startEarly(dir)!;
    expect(early).toBeDefined();
    const started = early.adopt(loc, config.baseline, snapshot.git)!;
    expect(started).toBeDefined();
    expect([...(await started.trackedDiff).keys()]).toEqual(['src/a.txt']);
    expect(await started.listed).toEqual(['.cordon/', 'src/new.txt']); // no ignore rules: .cordon/ too (the audit drops it)
    // Paths are sized one batch per turn of the event loop (BatchedWork); the diff may end before
    // the last batch's turn, and whatever is still unsized then the audit measures itself.
    await new Promise((resolve) => setImmediate(resolve));
    expect(started.trackedSizes.get('src/a.txt')).toEqual({ bytes: 2 });
    early.discard(); // adopted: the audit owns it now
    expect(readdirSync(tmpdir)).toHaveLength(1);
    started.stop();
    expect(readdirSync(tmpdir)).toEqual([]);

    const other = git(dir, 'rev-parse', 'HEAD~0').trim().replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const mismatches = [
      () => startEarly(dir)!.adopt(loc, other, snapshot.git),
      () => startEarly(dir)!.adopt(loc, config.baseline, { ...snapshot.git, info_exclude: `${snapshot.git.info_exclude}*.log\n` }),
      () => startEarly(dir)!.adopt({ ...loc, indexFile: join(dir, 'elsewhere') }, config.baseline, snapshot.git),
    ];
    for (const attempt of mismatches) {
      expect(attempt()).toBeUndefined();
      expect(readdirSync(tmpdir)).toEqual([]); // stopped and removed
    }
  });

  it('nothing is started from a subdirectory, an unarmed repository or a linked work tree', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    expect(startEarly(dir)).toBeUndefined();
    await armWith(dir, { allow: ['src/**'] });
    expect(startEarly(join(dir, 'src'))).toBeUndefined();
    const linked = join(tempDir('wt'), 'linked');
    git(dir, 'worktree', 'add', '-q', linked);
    await armWith(linked, { allow: ['src/**'] });
    expect(startEarly(linked)).toBeUndefined();
    // Each still checks through the ordinary route.
    write(linked, { 'src/a.txt': 'b\n' });
    expect((await checkIn(linked)).audit.changed_files).toEqual(['src/a.txt']);
    expect((await checkIn(join(dir, 'src'))).audit.passed).toBe(true);
  });

  it('a refused check (the lock is held) leaves no process or private directory behind', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'] });
    const loc = await discoverRepo(dir);
    const tmpdir = privateTmp();
    const held = acquireLock(loc.lockFile, 'test');
    try {
      await expect(checkIn(dir)).rejects.toMatchObject({ code: ERROR_CODES.LOCK_HELD });
    } finally {
      held.release();
    }
    expect(readdirSync(tmpdir)).toEqual([]);
    const result = await checkIn(dir);
    expect(codes(result)).toEqual([]);
  });
});

describe('locating the repository', () => {
  it('discoverRepoAndHead: the same layout as discoverRepo, and HEAD from the same git call (none while unborn)', async () => {
    const dir = tempDir('unborn');
    git(dir, 'init', '-q', '-b', 'main');
    mkdirSync(join(dir, 'sub'));
    expect(await discoverRepoAndHead(join(dir, 'sub'))).toEqual({ loc: await discoverRepo(dir), head: undefined });
    const armed = repo({ 'a.txt': 'a\n' });
    expect(await discoverRepoAndHead(armed)).toEqual({ loc: await discoverRepo(armed), head: git(armed, 'rev-parse', 'HEAD').trim() });
    await expect(discoverRepoAndHead(tempDir('plain'))).rejects.toMatchObject({ code: ERROR_CODES.REPO_ERROR });
  });
});
