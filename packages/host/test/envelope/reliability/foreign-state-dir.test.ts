import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/errors/index.js';
import { discoverRepo } from '../../../src/envelope/git/repo.js';
import { reset } from '../../../src/envelope/reset.js';
import { check } from '../../../src/envelope/check.js';
import { status } from '../../../src/envelope/status.js';
import { isOwnStateName, stateDirOwner } from '../../../src/envelope/state/own-dir.js';
import { armWith, git, repo, tempDir, write } from '../support.js';

/**
 * Issue 13 item 2: cordon never deletes or overwrites a file git tracks or that is not its own;
 * it recognises its own `.cordon/` by what it holds, and a foreign one is an error that says so.
 */

/** Every file under `dir` with its content (relative path → text), to prove nothing changed. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      if (path === '.git') continue;
      const stat = lstatSync(join(dir, path));
      if (stat.isDirectory()) walk(path);
      else out[path] = stat.isSymbolicLink() ? `-> ${path}` : readFileSync(join(dir, path), 'utf8');
    }
  };
  walk('');
  return out;
}

async function refusedForeign(run: () => Promise<unknown>): Promise<string> {
  let error: unknown;
  try {
    await run();
  } catch (e) {
    error = e;
  }
  expect(error).toMatchObject({ code: ERROR_CODES.STATE_FOREIGN, exit: 2 });
  return (error as Error).message;
}

describe('a .cordon/ that is not cordon\'s', () => {
  it('the example: a tracked .cordon/notes.txt with an uncommitted edit: arm and reset refuse, saying why; nothing changes', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.cordon/notes.txt': 'committed notes\n' });
    writeFileSync(join(dir, '.cordon/notes.txt'), 'committed notes\nplus an edit\n');
    const before = contents(dir);
    const armMessage = await refusedForeign(() => armWith(dir, { allow: ['src/**'] }));
    expect(armMessage).toContain(`${join(dir, '.cordon')} is not cordon's state directory: git tracks ".cordon/notes.txt"`);
    expect(armMessage).toContain('to use cordon in this work tree, rename it');
    const resetMessage = await refusedForeign(() => reset(dir));
    expect(resetMessage).toContain('git tracks ".cordon/notes.txt"');
    expect(contents(dir)).toEqual(before);
    expect(git(dir, 'status', '--porcelain')).toBe(' M .cordon/notes.txt\n');
  });

  it('a tracked file under a name cordon itself writes (.cordon/config.json) is still foreign', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.cordon/config.json': '{"theirs": true}\n' });
    const before = contents(dir);
    await refusedForeign(() => armWith(dir, { allow: ['src/**'] }));
    await refusedForeign(() => reset(dir));
    expect(contents(dir)).toEqual(before);
  });

  it('untracked but not cordon\'s (an ignored .cordon/ of another tool, a link, a file, a subdirectory): refused, untouched', async () => {
    const outside = tempDir('outside');
    writeFileSync(join(outside, 'precious.txt'), 'keep me\n');
    const cases: Array<[string, (dir: string) => void, RegExp]> = [
      ['ignored notes', (d) => write(d, { '.cordon/notes.txt': 'mine\n' }), /holds "notes.txt", which cordon does not write/],
      ['link to a directory', (d) => symlinkSync(outside, join(d, '.cordon')), /it is a symbolic link, not a directory/],
      ['regular file', (d) => writeFileSync(join(d, '.cordon'), 'a file\n'), /it is a regular file, not a directory/],
      ['state.json is a directory', (d) => mkdirSync(join(d, '.cordon/state.json'), { recursive: true }), /"state.json \(a directory\)"/],
      ['a link among own names', (d) => (mkdirSync(join(d, '.cordon')), symlinkSync(join(outside, 'precious.txt'), join(d, '.cordon/state.json'))), /"state.json \(a symbolic link\)"/],
    ];
    for (const [name, plant, why] of cases) {
      const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': '/.cordon\n' });
      plant(dir);
      const before = contents(dir);
      expect(await refusedForeign(() => armWith(dir, { allow: ['src/**'] })), name).toMatch(why);
      expect(await refusedForeign(() => reset(dir)), name).toMatch(why);
      expect(contents(dir), name).toEqual(before);
      expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).toBe('keep me\n');
    }
  });

  it('check and status on a foreign .cordon/ say it is not cordon\'s (exit 2), not "run cordon reset"', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': '/.cordon\n' });
    write(dir, { '.cordon/notes.txt': 'mine\n' });
    for (const run of [() => check({ repo: dir }), () => status(dir)]) {
      const message = await refusedForeign(run);
      expect(message).not.toMatch(/cordon reset/);
    }
    // A file named .cordon (found by a hostile-input probe: status said ENOTDIR and to run
    // `cordon reset`, which refuses it) is refused by both as reset refuses it.
    const file = repo({ 'src/a.txt': 'a\n', '.gitignore': '/.cordon\n' });
    writeFileSync(join(file, '.cordon'), 'x\n');
    for (const run of [() => check({ repo: file }), () => status(file), () => reset(file)]) {
      const message = await refusedForeign(run);
      expect(message).toContain(`${join(file, '.cordon')} is not cordon's state directory: it is a regular file, not a directory`);
      expect(message).not.toMatch(/cordon reset|ENOTDIR/);
    }
  });

  it('a .cordon that is a symbolic link to an envelope elsewhere is refused by check and status as reset refuses it; nothing is written there', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'] });
    // The agent moves the envelope out of the work tree and leaves a link in its place.
    const elsewhere = join(tempDir('elsewhere'), 'envelope');
    renameSync(join(dir, '.cordon'), elsewhere);
    symlinkSync(elsewhere, join(dir, '.cordon'));
    const before = readdirSync(elsewhere).sort();
    // Before, check and status read the envelope through the link (check wrote audit.json there,
    // outside the work tree) while reset refused the link as not cordon's.
    for (const run of [() => check({ repo: dir }), () => status(dir), () => reset(dir)]) {
      const message = await refusedForeign(run);
      expect(message).toContain(`${join(dir, '.cordon')} is not cordon's state directory: it is a symbolic link, not a directory`);
    }
    expect(readdirSync(elsewhere).sort()).toEqual(before);
    expect(before).not.toContain('audit.json');
    expect(lstatSync(join(dir, '.cordon')).isSymbolicLink()).toBe(true);
  });

  it('one of cordon\'s names held by a FIFO, a directory or a link (.cordon/audit.json) is named by check and status as reset names it', async () => {
    for (const make of [(p: string) => execFileSync('mkfifo', [p]), (p: string) => mkdirSync(p), (p: string) => symlinkSync('/dev/zero', p)]) {
      const dir = repo({ 'src/a.txt': 'a\n' });
      await armWith(dir, { allow: ['src/**'], verify: ['touch ran'] });
      const audit = join(dir, '.cordon', 'audit.json');
      make(audit);
      // Before, status said nothing was wrong and check ran the audit and its verifiers, then
      // failed to save the verdict (CORDON_STATE_WRITE: 'make .cordon writable (or free space)').
      for (const run of [() => check({ repo: dir }), () => status(dir)]) {
        const message = await refusedForeign(run);
        expect(message).toContain('"audit.json", which cordon did not write there');
        expect(message).toContain('mv .cordon/audit.json <another directory>');
      }
      expect(existsSync(join(dir, 'ran'))).toBe(false);
      await reset(dir);
      expect(lstatSync(audit).isFile()).toBe(false);
    }
  });

  it('an envelope with a file cordon did not write beside it: every command names the file and says moving it out mends it; reset keeps it', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { '.cordon/x.sarif': 'a report\n' });
    for (const run of [() => check({ repo: dir }), () => status(dir), () => armWith(dir, { allow: ['src/**'] })]) {
      const message = await refusedForeign(run);
      expect(message).toContain(`${join(dir, '.cordon')} holds the envelope and "x.sarif", which cordon did not write there`);
      expect(message).toContain('move that file out of .cordon/ (e.g. `mv .cordon/x.sarif <another directory>`), or delete it if nothing needs it, and the envelope works again');
      expect(message).not.toContain('to use cordon in this work tree, rename it');
    }
    // The advice works: moved out, the envelope is as it was.
    renameSync(join(dir, '.cordon/x.sarif'), join(tempDir('moved'), 'x.sarif'));
    expect((await check({ repo: dir })).audit.passed).toBe(true);
    // Reset removes cordon's files and leaves the user's, content and all.
    write(dir, { '.cordon/x.sarif': 'a report\n', '.cordon/notes/n.txt': 'n\n' });
    expect(await reset(dir)).toEqual({ removed: true, root: dir, kept: ['notes', 'x.sarif'] });
    expect(contents(join(dir, '.cordon'))).toEqual({ 'x.sarif': 'a report\n', 'notes/n.txt': 'n\n' });
    // What is left is not an envelope: refused as someone else's directory, untouched.
    expect(await refusedForeign(() => reset(dir))).toContain('to use cordon in this work tree, rename it');
    expect(contents(join(dir, '.cordon'))).toEqual({ 'x.sarif': 'a report\n', 'notes/n.txt': 'n\n' });
  });

  it('an envelope beside a file git tracks in .cordon/ is not reset: the tracked file makes the directory someone else\'s', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { '.cordon/x.sarif': 'a report\n' });
    git(dir, 'add', '-f', '.cordon/x.sarif');
    git(dir, 'commit', '-q', '-m', 'a tracked report');
    const before = contents(dir);
    expect(await refusedForeign(() => reset(dir))).toContain('git tracks ".cordon/x.sarif"');
    expect(contents(dir)).toEqual(before);
  });

  it('cordon\'s own envelope is still reset, also when corrupt or holding temp files of a killed writer', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(dir, '.cordon/state.json'), 'torn');
    writeFileSync(join(dir, '.cordon/.state.json.0123456789abcdef01234567.tmp'), '{');
    expect(await reset(dir)).toMatchObject({ removed: true });
    expect(existsSync(join(dir, '.cordon'))).toBe(false);
    expect(git(dir, 'status', '--porcelain', '--ignored')).toBe('');
  });

  it('ownership follows the names (property): foreign exactly when some entry is not a name cordon writes', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    const loc = await discoverRepo(dir);
    const own = fc.constantFrom('config.json', 'snapshot.json', 'state.json', 'audit.json', 'attempt-1.json', 'attempt-12.json', '.state.json.00112233445566778899aabb.tmp');
    const any = fc.oneof(own, fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/).filter((n) => n !== '.' && n !== '..'));
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(any, { maxLength: 6 }), async (names) => {
        const stateDir = join(tempDir('own'), `.cordon-${round++}`);
        mkdirSync(stateDir);
        for (const name of names) writeFileSync(join(stateDir, name), '{}');
        const owner = await stateDirOwner(stateDir, loc);
        expect(owner.kind).toBe(names.every(isOwnStateName) ? 'own' : 'foreign');
      }),
      { numRuns: 60 },
    );
  });
});
