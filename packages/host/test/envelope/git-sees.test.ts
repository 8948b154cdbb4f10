import fc from 'fast-check';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reset } from '../../src/envelope/index.js';
import { armWith, checkIn, codes, git, repo, TEST_HOME, write } from './support.js';

// Issue 12 item 1: no carried git setting may let a path the file system holds go unseen.

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}\n`).join('');

describe('settings that fold or hide names never hide a path', () => {
  it('core.ignorecase=true on a case-sensitive file system: SRC/A.TXT and readme.md are seen (the example)', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', 'README.md': '# demo\n' });
    git(dir, 'config', 'core.ignorecase', 'true');
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'SRC/A.TXT': lines(5000), 'readme.md': lines(5000) });
    const { audit } = await checkIn(dir);
    expect(audit.passed).toBe(false);
    expect(audit.changed_files).toEqual(['SRC/A.TXT', 'readme.md']);
    expect(audit.violations.filter((v) => v.code === 'path_outside_policy').map((v) => v.path)).toEqual(['SRC/A.TXT', 'readme.md']);
    expect(codes({ audit } as never)).toContain('max_added_lines_exceeded');
    expect(audit.metrics.added_lines).toBe(10_000);
  });

  it('the same from the global config, and for a re-cased directory, a dot-git look-alike and a new tree', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n', 'README.md': '# demo\n' });
    writeFileSync(join(TEST_HOME, '.gitconfig'), '[core]\n\tignorecase = true\n');
    try {
      await armWith(dir, { allow: ['**'] });
      write(dir, { 'Src/Deep/B.txt': 'B\n', '.GIT/config': '[core]\n', 'src/A.txt': 'A\n', 'NEW/x': 'x\n' });
      const { audit } = await checkIn(dir);
      expect(audit.changed_files).toEqual(['.GIT/config', 'NEW/x', 'Src/Deep/B.txt', 'src/A.txt']);
    } finally {
      writeFileSync(join(TEST_HOME, '.gitconfig'), '');
    }
  });

  it('case-folded ignore rules still apply as the user set them, and an ignored look-alike is an ignored entry', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': '*.log\nbuild/\n' });
    git(dir, 'config', 'core.ignorecase', 'true');
    // Ignored for the user's git (case folded): arming accepts it, as `git status` is clean.
    write(dir, { 'OLD.LOG': 'x\n' });
    expect(git(dir, 'status', '--porcelain')).toBe('');
    await armWith(dir, { allow: ['src/**'] });
    expect((await checkIn(dir)).audit.passed).toBe(true);
    write(dir, { 'NEW.LOG': 'y\n', 'BUILD/out.js': 'z\n' });
    const { audit } = await checkIn(dir);
    expect(audit.ignored_changes).toEqual([
      { path: 'BUILD/', change: 'new' },
      { path: 'NEW.LOG', change: 'new' },
    ]);
  });

  it('arm refuses an untracked name the index holds only in another case (git with ignorecase calls the tree clean)', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    git(dir, 'config', 'core.ignorecase', 'true');
    write(dir, { 'SRC/A.TXT': 'A\n' });
    expect(git(dir, 'status', '--porcelain')).toBe('');
    await expect(armWith(dir, { allow: ['src/**'] })).rejects.toThrow(/working tree must be clean.*SRC\/A\.TXT \(untracked\)/);
  });

  it('other settings that hide names from a listing are not carried: each new file is seen', async () => {
    const settings: Array<[string, string]> = [
      ['status.showUntrackedFiles', 'no'],
      ['core.untrackedCache', 'true'],
      ['core.fsmonitor', 'true'],
      ['core.sparseCheckout', 'true'],
      ['core.quotePath', 'true'],
      ['diff.noprefix', 'true'],
      ['diff.relative', 'true'],
      ['diff.ignoreSubmodules', 'all'],
      ['core.protectNTFS', 'false'],
      ['core.protectHFS', 'true'],
      ['core.precomposeUnicode', 'true'],
    ];
    const dir = repo({ 'src/a.txt': 'a\n', 'README.md': '# demo\n' });
    for (const [key, value] of settings) git(dir, 'config', key, value);
    // An excludes file that ignores everything once armed: the arm-time (empty) one is carried.
    git(dir, 'config', 'core.excludesFile', join(dir, '..', 'global-ignore'));
    writeFileSync(join(dir, '..', 'global-ignore'), '');
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(dir, '..', 'global-ignore'), '*\n');
    write(dir, { 'src/\u00e9 new.txt': 'n\n', 'README.md': '# changed\n', 'other/file': 'o\n' });
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['README.md', 'other/file', 'src/\u00e9 new.txt']);
  });

  it('property: any re-cased copy of a tracked path is reported', async () => {
    const tracked = ['src/a.txt', 'src/lib/util.ts', 'README.md', 'docs/Guide.md'];
    const dir = repo(Object.fromEntries(tracked.map((p) => [p, `${p}\n`])));
    git(dir, 'config', 'core.ignorecase', 'true');
    await armWith(dir, { allow: ['**'], maxFiles: 1000 });
    const recase = fc.tuple(fc.constantFrom(...tracked), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 })).map(([p, flips]) =>
      [...p].map((c, i) => (flips[i] ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c)).join(''),
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(recase, { minLength: 1, maxLength: 4 }), async (paths) => {
        const fresh = paths.filter((p) => !tracked.includes(p));
        for (const p of fresh) {
          mkdirSync(join(dir, p, '..'), { recursive: true });
          writeFileSync(join(dir, p), 'x\n');
        }
        try {
          const { audit } = await checkIn(dir);
          for (const p of fresh) expect(audit.changed_files).toContain(p);
        } finally {
          git(dir, 'clean', '-qfdx', '-e', '.cordon');
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('a change that exists only in the index is audited', () => {
  it('staged out-of-policy change, work tree restored from HEAD: rejected (the example)', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', 'README.md': '# demo\n' });
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(dir, 'README.md'), '# demo\nx\n');
    git(dir, 'add', 'README.md');
    writeFileSync(join(dir, 'README.md'), git(dir, 'show', 'HEAD:README.md'));
    expect(git(dir, 'diff', 'HEAD', '--stat')).toBe('');
    const { audit } = await checkIn(dir);
    expect(audit.passed).toBe(false);
    expect(audit.changed_files).toEqual(['README.md']);
    expect(audit.violations.map((v) => v.code)).toEqual(['path_outside_policy']);
    expect(audit.metrics).toMatchObject({ files: 1, added_lines: 1, deleted_lines: 0 });
  });

  it('a staged new file deleted from disk, a staged mode change, a staged deletion of a file put back', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', 'tool.sh': 'echo\n', 'keep.txt': 'k\n' });
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'added.txt': 'new\n' });
    git(dir, 'add', 'added.txt');
    git(dir, 'rm', '-q', '--cached', 'keep.txt');
    git(dir, 'update-index', '--chmod=+x', 'tool.sh');
    git(dir, 'rm', '-q', '--cached', 'added.txt');
    git(dir, 'add', 'added.txt');
    rmSync(join(dir, 'added.txt'));
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['added.txt', 'keep.txt', 'tool.sh']);
    expect(audit.violations.filter((v) => v.code === 'path_outside_policy').map((v) => v.path)).toEqual(['added.txt', 'keep.txt', 'tool.sh']);
  });

  it('a big staged change under a small work-tree edit counts the bigger one', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'], maxAddedLines: 100 });
    writeFileSync(join(dir, 'src/a.txt'), `a\n${lines(5000)}`);
    git(dir, 'add', 'src/a.txt');
    writeFileSync(join(dir, 'src/a.txt'), 'a\nb\n');
    const { audit } = await checkIn(dir);
    expect(audit.metrics.added_lines).toBe(5000);
    expect(audit.violations.map((v) => v.code)).toEqual(['max_added_lines_exceeded']);
  });

  it('committed, then staged back to the baseline content: judged by what would be committed', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', 'README.md': '# demo\n' });
    await armWith(dir, { allow: ['src/**'], allowCommits: true });
    write(dir, { 'src/a.txt': 'b\n' });
    git(dir, 'commit', '-qam', 'in policy');
    expect((await checkIn(dir)).audit.changed_files).toEqual(['src/a.txt']);
    writeFileSync(join(dir, 'README.md'), '# staged\n');
    git(dir, 'add', 'README.md');
    git(dir, 'checkout', 'HEAD', '--', 'README.md');
    git(dir, 'add', 'README.md');
    expect((await checkIn(dir)).audit.changed_files).toEqual(['src/a.txt']);
    writeFileSync(join(dir, 'README.md'), '# staged\n');
    git(dir, 'add', 'README.md');
    writeFileSync(join(dir, 'README.md'), '# demo\n');
    expect((await checkIn(dir)).audit.changed_files).toEqual(['README.md', 'src/a.txt']);
  });
});

describe('no hidden scan cap: the budgets decide', () => {
  const big = (path: string, bytes: number) => {
    const chunk = Buffer.alloc(1 << 20, 'abcdefghijklmnopqrstuvwxyz0123456789012345678901234567890123456\n');
    const fd = openSync(path, 'w');
    for (let left = bytes; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    closeSync(fd);
  };

  it('one 100 MB untracked file under an allowed path with --max-working-bytes 200000000: accepted (the example)', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'], maxWorkingBytes: 200_000_000, maxAddedLines: 10_000_000 });
    big(join(dir, 'src/big.txt'), 100_000_000);
    const { audit } = await checkIn(dir);
    expect(audit.violations).toEqual([]);
    expect(audit.passed).toBe(true);
    expect(audit.metrics).toMatchObject({ files: 1, working_bytes: 100_000_000, added_lines: 1_562_500 });
  });

  it('several files past 64 MiB in all within the budget pass; past the budget the working-byte budget rejects and says what was not read', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'], maxWorkingBytes: 90_000_000, maxAddedLines: 10_000_000 });
    for (const name of ['one', 'two', 'three']) big(join(dir, `src/${name}.txt`), 25_000_000);
    let { audit } = await checkIn(dir);
    expect(audit.passed).toBe(true);
    expect(audit.metrics.working_bytes).toBe(75_000_000);
    big(join(dir, 'src/four.txt'), 25_000_000);
    ({ audit } = await checkIn(dir));
    expect(audit.violations.map((v) => v.code)).toEqual(['max_working_bytes_exceeded']);
    expect(audit.violations[0]!.message).toMatch(/^working-byte budget exceeded: 100000000 > 90000000 \(95\.4 MiB > 85\.8 MiB\) \(the untracked files were not all read/);
  });
});

describe('clean/smudge filters: compared as git compares them, with arm-time drivers only', () => {
  /** A repository whose `*.dat` files go through driver `up` (`clean` = `command`), with assets/big.dat committed. */
  function filtered(command: string): string {
    const dir = repo({ 'src/a.txt': 'a\n' });
    git(dir, 'config', 'filter.up.clean', command);
    write(dir, { '.gitattributes': '*.dat filter=up\n', 'assets/big.dat': 'hello\nworld\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'filtered');
    return dir;
  }

  it('arm right after the commit is accepted and a touch is no change (the example)', async () => {
    const dir = filtered('tr a-z A-Z');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    await armWith(dir, { allow: ['assets/**'] });
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dir, 'assets/big.dat'), later, later);
    let { audit } = await checkIn(dir);
    expect(audit.passed).toBe(true);
    expect(audit.changed_files).toEqual([]);
    writeFileSync(join(dir, 'assets/big.dat'), 'hello\nworld\nmore\n');
    ({ audit } = await checkIn(dir));
    expect(audit.changed_files).toEqual(['assets/big.dat']);
    expect(audit.metrics).toMatchObject({ added_lines: 1, deleted_lines: 0 });
    expect(audit.notes).toBeUndefined();
  });

  it('a driver configured or reconfigured after arming never runs; the arm-time one does', async () => {
    const dir = filtered('tr a-z A-Z');
    await armWith(dir, { allow: ['assets/**'] });
    const marker = join(dir, '..', `ran-${Date.now()}`);
    git(dir, 'config', 'filter.up.clean', `sh -c 'touch ${marker}; cat'`);
    git(dir, 'config', 'filter.up.process', `sh -c 'touch ${marker}'`);
    git(dir, 'config', 'filter.late.clean', `sh -c 'touch ${marker}; cat'`);
    writeFileSync(join(dir, 'assets/big.dat'), 'hello\nworld\nmore\n');
    const { audit } = await checkIn(dir);
    expect(existsSync(marker)).toBe(false);
    expect(audit.changed_files).toEqual(['assets/big.dat']);
    expect(audit.metrics).toMatchObject({ added_lines: 1, deleted_lines: 0 });
  });

  it('a driver program changed after arming is not run and is a violation naming it', async () => {
    const bin = join(repo({ x: 'x\n' }), '..', `up-${Date.now()}.sh`);
    writeFileSync(bin, '#!/bin/sh\nexec tr a-z A-Z\n', { mode: 0o755 });
    const dir = filtered(bin);
    await armWith(dir, { allow: ['assets/**'] });
    expect((await checkIn(dir)).audit.passed).toBe(true);
    const marker = `${bin}.ran`;
    writeFileSync(bin, `#!/bin/sh\ntouch '${marker}'\nexec tr a-z A-Z\n`, { mode: 0o755 });
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dir, 'assets/big.dat'), later, later);
    const { audit } = await checkIn(dir);
    expect(existsSync(marker)).toBe(false);
    expect(audit.passed).toBe(false);
    const v = audit.violations.find((x) => x.code === 'filter_driver_changed');
    expect(v?.message).toMatch(/^filter driver 'up' is not run by the audit: .*up-\d+\.sh changed after the envelope was armed/);
  });

  it('a missing driver is named: program not found at arm, or a driver the attributes name that was never configured', async () => {
    const dir = filtered('tr a-z A-Z');
    git(dir, 'config', '--unset', 'filter.up.clean');
    // Without the driver git itself compares raw bytes: the committed blob is upper case.
    writeFileSync(join(dir, 'assets/big.dat'), 'HELLO\nWORLD\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    await armWith(dir, { allow: ['assets/**'] });
    writeFileSync(join(dir, 'assets/big.dat'), 'HELLO\nWORLD\nMORE\n');
    let { audit } = await checkIn(dir);
    expect(audit.notes).toEqual([
      "assets/big.dat: filter 'up' was not configured when the envelope was armed, so the audit compares these files as raw bytes (a driver configured after arming never runs in an audit; configure it, then arm again)",
    ]);
    await reset(dir);
    git(dir, 'checkout', '--', '.');
    git(dir, 'config', 'filter.up.clean', 'no-such-filter-program-xyz');
    await armWith(dir, { allow: ['assets/**'] });
    ({ audit } = await checkIn(dir));
    expect(audit.passed).toBe(true);
    expect(audit.notes).toEqual([
      'filter driver \'up\' is not run by the audit: the program of "no-such-filter-program-xyz" was not found when the envelope was armed; git cannot run it either, so files it filters are compared as raw bytes',
    ]);
  });
});

describe('verifier output in ignored paths', () => {
  const cacheWriter = (path: string) => `sh -c "mkdir -p $(dirname ${path}) && date +%s%N > ${path}"`;

  it('a verifier writing an ignored cache: the next identical check passes, and the record names what it wrote (the example)', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': 'node_modules/\n' });
    write(dir, { 'node_modules/dep/index.js': 'module.exports = 1\n' });
    await armWith(dir, { allow: ['src/**'], verify: [cacheWriter('node_modules/.cache/xo/cache.json')] });
    write(dir, { 'src/a.txt': 'b\n' });
    const first = await checkIn(dir);
    expect(first.audit.passed).toBe(true);
    expect(first.audit.notes).toEqual([
      "the verifiers changed ignored paths: node_modules/ (node_modules/.cache/xo/cache.json); later checks compare them with what the verifiers left, so this is not held against the agent (to leave them out of every audit, arm with --allow-ignored 'node_modules/.cache/xo/**')",
    ]);
    for (let i = 0; i < 2; i++) {
      const next = await checkIn(dir);
      expect(next.audit.violations).toEqual([]);
      expect(next.audit.passed).toBe(true);
    }
  });

  it('a change after the verifiers left an entry is still the agent’s: named, with the glob that would allow it', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': 'node_modules/\n.pytest_cache/\n' });
    write(dir, { 'node_modules/dep/index.js': 'module.exports = 1\n' });
    await armWith(dir, { allow: ['src/**'], verify: [cacheWriter('.pytest_cache/v/lastfailed')] });
    expect((await checkIn(dir)).audit.passed).toBe(true);
    // A new ignored directory written by the verifier is carried too.
    expect((await checkIn(dir)).audit.passed).toBe(true);
    write(dir, { '.pytest_cache/v/planted': 'x\n', 'node_modules/dep/index.js': 'module.exports = 2\n' });
    const { audit } = await checkIn(dir);
    expect(audit.violations.map((v) => v.message)).toEqual([
      "ignored entry changed after the previous check's verifiers left it (not covered by --allow-ignored): .pytest_cache/; if it may change, arm with --allow-ignored '.pytest_cache/**'",
      "ignored entry changed after arming (not covered by --allow-ignored): node_modules/; if it may change, arm with --allow-ignored 'node_modules/**'",
    ]);
    // The failed check (no verifier ran) keeps what the verifiers left for the next one.
    expect(Object.keys(audit.ignored_after_verifiers ?? {})).toEqual(['.pytest_cache/']);
  });

  it('a verifier deleting an ignored file and one writing a single ignored file', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': '*.log\n.eslintcache\n' });
    write(dir, { 'old.log': 'x\n' });
    await armWith(dir, { allow: ['src/**'], verify: ['rm -f old.log', cacheWriter('.eslintcache')] });
    const first = await checkIn(dir);
    expect(first.audit.passed).toBe(true);
    expect(first.audit.notes?.[0]).toMatch(/^the verifiers changed ignored paths: \.eslintcache, old\.log;/);
    expect((await checkIn(dir)).audit.passed).toBe(true);
    write(dir, { 'old.log': 'back\n' });
    expect((await checkIn(dir)).audit.violations.map((v) => v.code)).toEqual(['ignored_new']);
  });
});
