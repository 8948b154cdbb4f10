import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';
import { changedFilesSection, SHOWN_CHANGED_FILES } from '../../src/envelope/render.js';
import { auditRecordProblem } from '../../src/envelope/state/schema.js';

// Found by a fresh user's walkthrough: a deleted file read `path outside policy: README.md` with
// no sign it was gone, a rename read as two unrelated paths, and an accepted check named no file.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-verdict-files-');
});
afterEach(() => sandbox.cleanup());

const cordon = (args: string[], cwd: string) => runCordon(args, { env: sandbox.env, cwd });
const newRepo = (files: Record<string, string>) => makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), files, sandbox.env);

describe('how each changed file changed, in the verdict and the record', () => {
  it('rejected: a deleted path says deleted, a new one added, a rename git sees shows as old -> new on both sides; the same in --format github', async () => {
    const repo = newRepo({ 'README.md': '# demo\n', 'src/app.py': 'print(1)\n', 'src/util.py': 'x = 1\n' });
    expect((await cordon(['arm', 'walk', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    git(repo, ['rm', '-q', 'README.md'], sandbox.env);
    mkdirSync(join(repo, 'lib'));
    git(repo, ['mv', 'src/util.py', 'lib/util.py'], sandbox.env);
    writeFiles(repo, { 'docs/x.md': 'x\n', 'src/app.py': 'print(2)\n' });
    const r = await cordon(['check'], repo);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('violation: '))).toEqual([
      'violation: path outside policy: README.md (deleted; matches no allow glob)',
      'violation: path outside policy: docs/x.md (added; matches no allow glob)',
      'violation: path outside policy: lib/util.py (renamed src/util.py -> lib/util.py; matches no allow glob)',
    ]);
    // A rejected verdict lists the changed files as an accepted one does, before its violations.
    const lines = r.stdout.split('\n');
    expect(lines.slice(lines.indexOf('changed files:'), lines.findIndex((l) => l.startsWith('violation: ')))).toEqual(['changed files:', '  README.md (deleted)', '  docs/x.md (added)', '  src/util.py -> lib/util.py (renamed)', '  src/app.py (modified)']);
    const json = JSON.parse((await cordon(['check', '--json'], repo)).stdout);
    expect(json.changed_files).toEqual(['README.md', 'docs/x.md', 'lib/util.py', 'src/app.py', 'src/util.py']);
    expect(json.changed_file_status).toBe('DAAMD');
    expect(json.shown_renames).toEqual([{ from: 'src/util.py', to: 'lib/util.py' }]);
    // Both sides of the rename still count (the audit runs without rename detection).
    expect(json.metrics.files).toBe(5);
    const github = await cordon(['check', '--format', 'github'], repo);
    expect(github.stdout).toContain('::error file=README.md,title=cordon%3A path_outside_policy::path outside policy: README.md (deleted; matches no allow glob)');
  });

  it('accepted: the changed files with their status, a rename on one line, escaped paths, at most 20 then how many more', async () => {
    const repo = newRepo({ 'notes.txt': 'n\n', 'old.md': 'same\n', 'src/app.py': 'a\n' });
    expect((await cordon(['arm', 'walk', '--allow', '**', '--max-files', '100'], repo)).exitCode).toBe(0);
    git(repo, ['mv', 'old.md', 'new.md'], sandbox.env);
    git(repo, ['rm', '-q', 'notes.txt'], sandbox.env);
    writeFiles(repo, { 'src/app.py': 'b\n', 'src/esc\x1b[2J.py': 'e\n' });
    let r = await cordon(['check'], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(lines.indexOf('changed files:'))).toEqual(['changed files:', '  old.md -> new.md (renamed)', '  notes.txt (deleted)', '  src/app.py (modified)', '  "src/esc\\u001b[2J.py" (added)']);
    for (let i = 0; i < 25; i++) writeFileSync(join(repo, 'src', `f${String(i).padStart(2, '0')}.py`), `${i}\n`);
    r = await cordon(['check'], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    const listed = r.stdout.trimEnd().split('\n');
    const from = listed.indexOf('changed files:');
    // 30 paths, the rename one entry of two: 29 entries, 20 shown.
    expect(listed.slice(from + 1).filter((l) => /^ {2}\S/.test(l))).toHaveLength(SHOWN_CHANGED_FILES + 1);
    expect(listed.at(-1)).toBe('  \u2026 and 9 more (`cordon check --json` lists every changed file)');
  });

  it('rejected over the file budget: the changed files are listed, the first 20 then how many more', async () => {
    const repo = newRepo({ 'src/a.py': 'a\n' });
    expect((await cordon(['arm', 'walk', '--allow', 'src/**', '--max-files', '2'], repo)).exitCode).toBe(0);
    writeFiles(repo, { 'src/a.py': 'b\n', 'src/b.py': 'b\n', 'src/c.py': 'c\n' });
    let r = await cordon(['check'], repo);
    expect(r.exitCode, r.stderr).toBe(3);
    let lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain('violation: file budget exceeded: 3 > 2');
    expect(lines.slice(lines.indexOf('changed files:'), lines.indexOf('changed files:') + 4)).toEqual(['changed files:', '  src/a.py (modified)', '  src/b.py (added)', '  src/c.py (added)']);
    for (let i = 0; i < 25; i++) writeFileSync(join(repo, 'src', `f${String(i).padStart(2, '0')}.py`), `${i}\n`);
    r = await cordon(['check'], repo);
    expect(r.exitCode, r.stderr).toBe(3);
    lines = r.stdout.trimEnd().split('\n');
    const from = lines.indexOf('changed files:');
    expect(from).toBeGreaterThan(0);
    expect(lines.slice(from + 1).filter((l) => /^ {2}\S/.test(l))).toHaveLength(SHOWN_CHANGED_FILES + 1);
    expect(lines).toContain('  \u2026 and 8 more (`cordon check --json` lists every changed file)');
  });

  it('a plain mv (the new file untracked, no id from git) reads as a deletion and an addition; once staged, as a rename', async () => {
    const repo = newRepo({ 'src/a.py': '1\n', 'src/c.py': 'c\n', 'README.md': 'r\n' });
    expect((await cordon(['arm', 'walk', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    renameSync(join(repo, 'src/a.py'), join(repo, 'src/b.py'));
    git(repo, ['rm', '-q', 'src/c.py'], sandbox.env);
    writeFiles(repo, { 'src/d.py': 'd\n' });
    let r = await cordon(['check'], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('changed files:\n  src/a.py (deleted)\n  src/b.py (added)\n  src/c.py (deleted)\n  src/d.py (added)\n');
    // Staged (git add -A: the work-tree file is the index's), git names the new file's blob: a rename.
    git(repo, ['add', '-A'], sandbox.env);
    r = await cordon(['check'], repo);
    expect(r.stdout).toContain('changed files:\n  src/a.py -> src/b.py (renamed)\n  src/c.py (deleted)\n  src/d.py (added)\n');
    renameSync(join(repo, 'README.md'), join(repo, 'README.txt'));
    git(repo, ['add', '-A'], sandbox.env);
    r = await cordon(['check'], repo);
    expect(r.stdout).toContain('violation: path outside policy: README.md (renamed README.md -> README.txt; matches no allow glob)');
  });

  it('check --base: a committed rename and deletion read the same from the range', async () => {
    const repo = newRepo({ 'src/a.py': 'a\n', 'src/gone.py': 'g\n' });
    git(repo, ['mv', 'src/a.py', 'src/b.py'], sandbox.env);
    git(repo, ['rm', '-q', 'src/gone.py'], sandbox.env);
    git(repo, ['commit', '-qm', 'move'], sandbox.env);
    const r = await cordon(['check', '--base', 'HEAD~1', '--allow', 'src/b.py'], repo);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('violation: '))).toEqual([
      'violation: path outside policy: src/a.py (renamed src/a.py -> src/b.py; matches no allow glob)',
      'violation: path outside policy: src/gone.py (deleted; matches no allow glob)',
    ]);
  });

  it('counts a rename once wherever its two paths fall around the cut, and formats only the shown entries', () => {
    // 30 paths: a rename with one path among the first 20 and the other past them, one wholly
    // past them, so 28 entries: 20 shown, 8 more.
    const files = Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
    const audit = {
      changed_files: files,
      changed_file_status: files.map(() => 'M'),
      shown_renames: [
        { from: 'f05.txt', to: 'f25.txt' },
        { from: 'f27.txt', to: 'f28.txt' },
      ],
    };
    const lines = changedFilesSection(audit as never);
    expect(lines).toHaveLength(1 + SHOWN_CHANGED_FILES + 1);
    expect(lines[6]).toBe('  f05.txt -> f25.txt (renamed)');
    expect(lines).not.toContain('  f25.txt (modified)');
    expect(lines.at(-1)).toBe('  \u2026 and 8 more (`cordon check --json` lists every changed file)');
    // Exactly 20 entries: no "more" line.
    expect(changedFilesSection({ ...audit, changed_files: files.slice(0, 22), changed_file_status: files.slice(0, 22).map(() => 'M'), shown_renames: [{ from: 'f00.txt', to: 'f21.txt' }, { from: 'f01.txt', to: 'f20.txt' }] } as never)).toHaveLength(1 + SHOWN_CHANGED_FILES);
  });

  it('a record of an older cordon, without statuses, still loads and shows its paths plainly', () => {
    const old = { passed: true, mode: 'envelope', baseline: 'a'.repeat(40), current_head: 'a'.repeat(40), head_changed: false, changed_files: ['x.txt', 'y.txt'], metrics: {}, limits: {}, violations: [], ignored_changes: [], verification: [], verification_skipped: false };
    expect(auditRecordProblem(old)).toBeUndefined();
    expect(changedFilesSection(old as never)).toEqual(['changed files:', '  x.txt', '  y.txt']);
    expect(auditRecordProblem({ ...old, changed_file_status: 'A' })).toMatch(/changed_file_status is not one status letter \(A, D, M, T, U, X\) per changed file/);
    expect(auditRecordProblem({ ...old, changed_file_status: ['added'] })).toMatch(/changed_file_status is not one status letter/);
  });
});
