import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AsyncSeriesHook } from 'tapable';
import type { AuditContext } from '@cordon/plugin-api';
import { ERROR_CODES } from '../../src/errors/index.js';
import { arm, check, reset, resolveSettings, status } from '../../src/envelope/index.js';
import { measureUntracked, readWithinBudget } from '../../src/envelope/evidence/measure.js';
import { armWith, checkIn, codes, commitAll, git, repo, tempDir, write } from './support.js';

const REFERENCE_LIMITS = { maxFiles: 10, maxAddedLines: 100, maxDeletedLines: 100, maxWorkingBytes: 100_000, maxBinaryFiles: 1 };

describe('user scenarios (the BEKO2210/SkillQuarry cordon)', () => {
  it('S1: manual arm, edit an allowed file, check passes and status says accepted', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'], ...REFERENCE_LIMITS });
    write(dir, { 'src/app.py': 'print("hello, world")\n' });
    const { audit } = await checkIn(dir);
    expect(audit.passed).toBe(true);
    expect(audit.changed_files).toEqual(['src/app.py']);
    expect(audit.metrics).toEqual({ files: 1, added_lines: 1, deleted_lines: 1, working_bytes: 22, binary_files: 0 });
    expect((await status(dir)).phase).toBe('accepted');
  });

  it('changed paths are listed in byte order, ASCII-only or not (UTF-16 order differs past U+D7FF)', async () => {
    const ascii = repo();
    await armWith(ascii, { allow: ['**'], ...REFERENCE_LIMITS });
    write(ascii, { 'src/b': '1\n', 'src/a': '1\n', 'src/Z': '1\n', 'src/_': '1\n', 'src/a.b': '1\n' });
    expect((await checkIn(ascii)).audit.changed_files).toEqual(['src/Z', 'src/_', 'src/a', 'src/a.b', 'src/b']);
    const mixed = repo();
    await armWith(mixed, { allow: ['**'], ...REFERENCE_LIMITS });
    // UTF-8: Z 5A < a 61 < é C3A9 < ｚ EFBD9A < 😀 F09F9880; UTF-16 would put 😀 (D83D…) before ｚ (FF5A).
    write(mixed, { 'src/\u{1F600}': '1\n', 'src/\uFF5A': '1\n', 'src/\u00E9': '1\n', 'src/a': '1\n', 'src/Z': '1\n' });
    expect((await checkIn(mixed)).audit.changed_files).toEqual(['src/Z', 'src/a', 'src/\u00E9', 'src/\uFF5A', 'src/\u{1F600}']);
  });

  it('S5: newline/tab names pass verbatim; README outside policy fails; garbage state is refused', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'src/line\nbreak\tname.py': 'x = 1\n' });
    let result = await checkIn(dir);
    expect(result.audit.passed).toBe(true);
    expect(result.audit.changed_files).toEqual(['src/line\nbreak\tname.py']);
    expect(readFileSync(join(dir, '.cordon', 'audit.json'), 'utf8')).toContain('"src/line\\nbreak\\tname.py"');
    await reset(dir);
    rmSync(join(dir, 'src/line\nbreak\tname.py'));
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'README.md': '# changed\n' });
    result = await checkIn(dir);
    expect(result.audit.passed).toBe(false);
    expect(result.audit.violations[0]!.message).toMatch(/^path outside policy: README.md/);
    await reset(dir);
    git(dir, 'checkout', '--', 'README.md');
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(dir, '.cordon', 'state.json'), 'garbage');
    await expect(status(dir)).rejects.toMatchObject({ code: ERROR_CODES.BAD_STATE });
  });

  it('S6: a file name that is not UTF-8 passes and its JSON holds a \\udcff escape', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(Buffer.concat([Buffer.from(`${dir}/src/invalid-`), Buffer.from([0xff]), Buffer.from('.py')]), 'x = 1\n');
    const { audit } = await checkIn(dir);
    expect(audit.passed).toBe(true);
    expect(audit.changed_files).toEqual(['src/invalid-\udcff.py']);
    expect(readFileSync(join(dir, '.cordon', 'audit.json'), 'latin1')).toContain('src/invalid-\\udcff.py');
  });

  it('names that start with a byte order mark are kept whole, untracked and tracked, beside the names without it', async () => {
    // A TextDecoder drops a leading U+FEFF unless told not to: the audit then looked for `a.txt`.
    const dir = repo({ 'src/\ufeffb.txt': 'b\n', 'src/b.txt': 'plain\n' });
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(dir, 'src/\ufeffa.txt'), 'x\ny\nz\n');
    writeFileSync(join(dir, 'src/\ufeffb.txt'), 'b\nb2\n');
    const { audit } = await checkIn(dir);
    expect(audit.violations).toEqual([]);
    expect(audit.changed_files).toEqual(['src/\ufeffa.txt', 'src/\ufeffb.txt']);
    expect(audit.metrics).toMatchObject({ files: 2, added_lines: 4, deleted_lines: 0, working_bytes: 6 + 5 });
  });
});

describe('hardening (the BEKO2210/SkillQuarry cordon)', () => {
  it('H05a: NUL bytes in a tracked file count it as binary with no lines', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    writeFileSync(join(dir, 'src/app.py'), Buffer.from([0x70, 0, 0, 0x71]));
    const { audit } = await checkIn(dir);
    expect(audit.metrics).toMatchObject({ binary_files: 1, added_lines: 0, deleted_lines: 0, working_bytes: 4 });
    expect(codes({ audit } as never)).toEqual([]);
  });

  it('H05b/H30: untracked measurement matrix', () => {
    const dir = tempDir();
    write(dir, { 'bin.dat': Buffer.from('a\0b'), 'two.txt': 'a\nb', 'empty.txt': '', 'target': 'target' });
    symlinkSync('target', join(dir, 'link'));
    mkdirSync(join(dir, 'adir'));
    const items = [
      { path: 'adir', kind: 'path' as const },
      { path: 'bin.dat', kind: 'path' as const },
      { path: 'empty.txt', kind: 'path' as const },
      { path: 'gone.txt', kind: 'path' as const },
      { path: 'link', kind: 'path' as const },
      { path: 'two.txt', kind: 'path' as const },
    ];
    const scan = measureUntracked(dir, items, 1_000_000);
    expect(Object.fromEntries(scan.measures)).toEqual({
      'bin.dat': { bytes: 3, lines: 0, binary: true },
      'empty.txt': { bytes: 0, lines: 0, binary: false },
      link: { bytes: 6, lines: 1, binary: false },
      'two.txt': { bytes: 3, lines: 2, binary: false },
    });
    expect(scan.violations.map((v) => v.message)).toEqual(['untracked path is not a regular file or symlink: adir', 'untracked file disappeared: gone.txt']);
    const failing = measureUntracked(dir, [{ path: 'two.txt', kind: 'path' }], 64, () => {
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    });
    // The system's words, without the code or the call.
    expect(failing.violations.map((v) => v.message)).toEqual(['cannot read untracked file: two.txt: input/output error']);
  });

  it('H17: --repo may name any directory inside the work tree', async () => {
    const dir = repo();
    const env = await arm({ label: 'x', settings: resolveSettings({ allow: ['src/**'] }) }, { repo: join(dir, 'src') });
    expect(env.paths.dir).toBe(join(dir, '.cordon'));
    expect((await check({ repo: join(dir, 'src') })).audit.passed).toBe(true);
  });

  it('H18: arm refuses assume-unchanged paths, names them and the remedy, creates nothing', async () => {
    const dir = repo();
    git(dir, 'update-index', '--assume-unchanged', 'README.md');
    await expect(armWith(dir, { allow: ['src/**'] })).rejects.toMatchObject({ code: ERROR_CODES.REPO_ERROR, message: expect.stringMatching(/README\.md.*--no-assume-unchanged/) });
    expect(existsSync(join(dir, '.cordon'))).toBe(false);
  });

  it('H19/H20: assume-unchanged set after arming is a violation; a clean repo has none', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    expect((await checkIn(dir)).audit.violations).toEqual([]);
    git(dir, 'update-index', '--assume-unchanged', 'README.md');
    write(dir, { 'README.md': 'hidden edit\n' });
    const result = await checkIn(dir);
    expect(result.audit.passed).toBe(false);
    expect(result.audit.violations[0]).toMatchObject({ code: 'index_flag_hidden', message: expect.stringContaining('hidden from the audit') });
  });

  it('H21/H23/H24: skip-worktree after arming, 13 paths named 10 + "(+3 more)", non-UTF-8 names included', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`data/f${String(i).padStart(2, '0')}.bin`] = `${i}\n`;
    const dir = repo({ ...files, 'src/app.py': 'x\n' });
    writeFileSync(Buffer.from([...Buffer.from(`${dir}/weird-`), 0xff, ...Buffer.from('.bin')]), 'w\n');
    commitAll(dir);
    await armWith(dir, { allow: ['src/**'] });
    git(dir, 'update-index', '--skip-worktree', ...Object.keys(files));
    execFileSync('git', ['update-index', '--skip-worktree', '-z', '--stdin'], { cwd: dir, input: Buffer.from([...Buffer.from('weird-'), 0xff, ...Buffer.from('.bin'), 0]) });
    const { audit } = await checkIn(dir);
    expect(audit.passed).toBe(false);
    const message = audit.violations.find((v) => v.code === 'index_flag_hidden')!.message;
    expect(message).toContain('(+3 more)');
    expect(message.split('data/f').length - 1 + (message.includes('weird-\\udcff.bin') ? 1 : 0)).toBe(10);
  });

  it('H25: every budget and the commit rule', async () => {
    const dir = repo({ 'src/app.py': 'a\nb\n', 'README.md': 'r\n' });
    await armWith(dir, { allow: ['**'], maxFiles: 1, maxAddedLines: 0, maxDeletedLines: 0, maxWorkingBytes: 0, maxBinaryFiles: 0 });
    write(dir, { 'src/app.py': 'a\nc\n', 'src/new.py': 'n\n', 'img.bin': Buffer.from([1, 0, 2]) });
    let audit = (await checkIn(dir)).audit;
    expect(audit.violations.map((v) => v.message)).toEqual([
      'file budget exceeded: 3 > 1',
      'added-line budget exceeded: 2 > 0',
      'deleted-line budget exceeded: 1 > 0',
      'working-byte budget exceeded: 9 > 0',
      'binary-file budget exceeded: 1 > 0',
    ]);
    commitAll(dir, 'agent commit');
    audit = (await checkIn(dir)).audit;
    expect(audit.head_changed).toBe(true);
    expect(audit.violations[0]!.message).toBe('HEAD changed from the armed baseline; commits are not allowed (this envelope was armed without --allow-commits, the `cordon arm` and `cordon run` option that allows them)');
    expect(audit.metrics.files).toBe(3);
    await reset(dir);
    git(dir, 'reset', '-q', '--hard', 'HEAD~1');
    git(dir, 'clean', '-qfd');
    await armWith(dir, { allow: ['**'], allowCommits: true });
    write(dir, { 'src/app.py': 'a\nc\n' });
    commitAll(dir, 'allowed commit');
    audit = (await checkIn(dir)).audit;
    expect(audit).toMatchObject({ passed: true, head_changed: true, changed_files: ['src/app.py'], metrics: { added_lines: 1, deleted_lines: 1 } });
  });

  it('H26: budgets are inclusive at the exact boundary', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'], maxFiles: 1, maxAddedLines: 1, maxDeletedLines: 0, maxWorkingBytes: 4, maxBinaryFiles: 0 });
    write(dir, { 'src/x.py': 'x=1\n' });
    expect((await checkIn(dir)).audit.passed).toBe(true);
    write(dir, { 'src/x.py': 'x=1\ny=2\n' });
    expect(codes(await checkIn(dir))).toEqual(['max_added_lines_exceeded', 'max_working_bytes_exceeded']);
  });

  it('H27: a tracked path that cannot be stat-ed, and one replaced by a directory', async () => {
    const dir = repo({ 'src/a/b.py': 'b\n', 'src/c.py': 'c\n' });
    await armWith(dir, { allow: ['src/**'] });
    rmSync(join(dir, 'src/a'), { recursive: true });
    symlinkSync('a', join(dir, 'src/a')); // a symlink loop: lstat("src/a/b.py") fails with ELOOP
    rmSync(join(dir, 'src/c.py'));
    mkdirSync(join(dir, 'src/c.py'));
    write(dir, { 'src/c.py/inner.txt': 'i\n' });
    const messages = (await checkIn(dir)).audit.violations.map((v) => v.message);
    expect(messages).toContain('changed path has unsupported file type: src/c.py');
    expect(messages.some((m) => m.startsWith('cannot stat changed path: src/a/b.py: ELOOP'))).toBe(true);
  });

  it('H28: reading stops at the working-byte budget, with no violation of its own', () => {
    const dir = tempDir();
    write(dir, { 'f64': 'x'.repeat(64), 'f65': 'x'.repeat(65) });
    const within = measureUntracked(dir, [{ path: 'f64', kind: 'path' }], 64);
    expect(within.violations).toEqual([]);
    expect(within.capExceeded).toBe(false);
    expect(within.measures.get('f64')).toEqual({ bytes: 64, lines: 1, binary: false });
    const over = measureUntracked(dir, [{ path: 'f65', kind: 'path' }], 64);
    expect(over.violations).toEqual([]);
    expect(over.capExceeded).toBe(true);
    expect(over.measures.get('f65')).toEqual({ bytes: 65, lines: 0, binary: false });
  });

  it('H29: reading stops one byte past the budget; a negative budget is refused', () => {
    const dir = tempDir();
    write(dir, { grown: 'y'.repeat(200) });
    expect(readWithinBudget(join(dir, 'grown'), 64)).toEqual({ bytes: 65, lines: 1, binary: false, exceeded: true });
    expect(() => readWithinBudget(join(dir, 'grown'), -1)).toThrow(RangeError);
  });
});

describe('probe-derived cases (the BEKO2210/SkillQuarry cordon)', () => {
  it('chmod +x on an allowed tracked file: one file, no lines', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    chmodSync(join(dir, 'src/app.py'), 0o755);
    const { audit } = await checkIn(dir);
    expect(audit).toMatchObject({ passed: true, changed_files: ['src/app.py'], metrics: { files: 1, added_lines: 0, deleted_lines: 0 } });
  });

  it('deleting a tracked file outside --allow is a violation and counts its lines', async () => {
    const dir = repo({ 'src/app.py': 'a\n', 'README.md': 'one\ntwo\n' });
    await armWith(dir, { allow: ['src/**'] });
    unlinkSync(join(dir, 'README.md'));
    const { audit } = await checkIn(dir);
    // Found by a fresh user: the message said nothing of the file being gone.
    expect(audit.violations[0]!.message).toBe('path outside policy: README.md (deleted; matches no allow glob)');
    expect(audit.changed_file_status).toBe('D');
    expect(audit.metrics).toMatchObject({ files: 1, deleted_lines: 2, working_bytes: 0 });
  });

  it('git mv out of the allowed tree: both sides count, the new side violates', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    mkdirSync(join(dir, 'docs'));
    git(dir, 'mv', 'src/app.py', 'docs/app.py');
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['docs/app.py', 'src/app.py']);
    expect(audit.violations.map((v) => v.path)).toEqual(['docs/app.py']);
    // Counted as two paths, shown as the rename git's blob ids say it is.
    expect(audit.changed_file_status).toBe('AD');
    expect(audit.shown_renames).toEqual([{ from: 'src/app.py', to: 'docs/app.py' }]);
    expect(audit.violations[0]!.message).toBe('path outside policy: docs/app.py (renamed src/app.py -> docs/app.py; matches no allow glob)');
  });

  it('a plain mv inside src: deleted + untracked, both allowed', async () => {
    const dir = repo({ 'src/a.py': '1\n2\n3\n', 'README.md': 'r\n' });
    await armWith(dir, { allow: ['src/**'] });
    renameSync(join(dir, 'src/a.py'), join(dir, 'src/b.py'));
    const { audit } = await checkIn(dir);
    expect(audit).toMatchObject({ passed: true, changed_files: ['src/a.py', 'src/b.py'], metrics: { files: 2, added_lines: 3, deleted_lines: 3 } });
  });

  it('an untracked nested repository is a violation listed as a directory', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    git(dir, 'init', '-q', 'src/inner');
    write(dir, { 'src/inner/x.txt': 'x\n' });
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['src/inner/']);
    expect(audit.violations.map((v) => v.message)).toEqual(['untracked path is not a regular file or symlink (nested repository): src/inner/']);
  });

  it('submodules: a moved pointer and a dirty work tree are both violations', async () => {
    const sub = repo({ 'lib.txt': 'v1\n' });
    const dir = repo();
    git(dir, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'src/sub');
    commitAll(dir, 'add submodule');
    await armWith(dir, { allow: ['src/**'] });
    expect((await checkIn(dir)).audit.passed).toBe(true);
    write(dir, { 'src/sub/lib.txt': 'dirty\n' });
    let audit = (await checkIn(dir)).audit;
    expect(audit.violations.map((v) => v.code)).toEqual(['submodule_changed']);
    git(join(dir, 'src/sub'), 'commit', '-qam', 'moved');
    audit = (await checkIn(dir)).audit;
    expect(audit.violations.map((v) => v.code)).toEqual(expect.arrayContaining(['submodule_changed', 'unsupported_file_type']));
    expect(audit.violations.find((v) => v.code === 'unsupported_file_type')!.message).toBe('changed path has unsupported file type (submodule): src/sub');
  });

  it('an empty untracked file is one file with 0 lines and 0 bytes; 3 new lines break a 2-line budget', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'], maxAddedLines: 2 });
    write(dir, { 'src/empty.py': '' });
    expect((await checkIn(dir)).audit).toMatchObject({ passed: true, metrics: { files: 1, added_lines: 0, working_bytes: 0 } });
    write(dir, { 'src/three.py': '1\n2\n3' });
    expect(codes(await checkIn(dir))).toEqual(['max_added_lines_exceeded']);
  });

  it('arm refuses an untracked file, an unborn HEAD and a second arm; ignored files are fine', async () => {
    const dir = repo({ 'src/app.py': 'a\n', '.gitignore': '*.log\n' });
    write(dir, { 'notes.txt': 'untracked\n' });
    await expect(armWith(dir, { allow: ['src/**'] })).rejects.toThrow(/working tree must be clean.*notes\.txt/);
    // Each dirty path is named with what is dirty about it, in words.
    write(dir, { 'src/app.py': 'changed\n', 'src/staged.py': 's\n' });
    git(dir, 'add', 'src/staged.py');
    await expect(armWith(dir, { allow: ['src/**'] })).rejects.toThrow(
      'working tree must be clean before cordon arms an envelope (commit or stash first): src/app.py (modified), src/staged.py (added, staged), notes.txt (untracked)',
    );
    // A name a terminal would not show as itself is quoted once, its characters escaped once.
    write(dir, { 'odd\nname': 'x\n', '\ufeffbom.txt': 'x\n' });
    await expect(armWith(dir, { allow: ['src/**'] })).rejects.toThrow(
      'working tree must be clean before cordon arms an envelope (commit or stash first): src/app.py (modified), src/staged.py (added, staged), notes.txt (untracked), "odd\\nname" (untracked), "\\ufeffbom.txt" (untracked)',
    );
    unlinkSync(join(dir, 'odd\nname'));
    unlinkSync(join(dir, '\ufeffbom.txt'));
    git(dir, 'rm', '-q', '--cached', 'src/staged.py');
    unlinkSync(join(dir, 'src/staged.py'));
    git(dir, 'checkout', '-q', '--', 'src/app.py');
    unlinkSync(join(dir, 'notes.txt'));
    write(dir, { 'debug.log': 'ignored\n' });
    await armWith(dir, { allow: ['src/**'] });
    await expect(armWith(dir, { allow: ['src/**'] })).rejects.toMatchObject({ code: ERROR_CODES.BAD_STATE, message: expect.stringContaining('already armed') });
    const empty = tempDir('unborn');
    git(empty, 'init', '-q');
    await expect(armWith(empty, { allow: ['src/**'] })).rejects.toMatchObject({ code: ERROR_CODES.REPO_ERROR, message: expect.stringContaining('cannot resolve HEAD') });
  });

  it('status and check before arming say nothing is armed in the root; reset is a no-op', async () => {
    const dir = realpathSync(repo());
    const nothing = `nothing is armed in ${dir} (run \`cordon arm\` first)`;
    await expect(status(join(dir, 'src'))).rejects.toThrow(expect.objectContaining({ code: ERROR_CODES.BAD_STATE, message: nothing }));
    await expect(check({ repo: dir })).rejects.toThrow(expect.objectContaining({ code: ERROR_CODES.BAD_STATE, message: nothing }));
    expect(await reset(dir)).toEqual({ removed: false, root: dir });
  });

  it('git rm --cached on a file still on disk: both sets, bytes once', async () => {
    const dir = repo({ 'src/app.py': 'a\nb\n', 'README.md': 'r\n' });
    await armWith(dir, { allow: ['src/**'] });
    git(dir, 'rm', '-q', '--cached', 'src/app.py');
    const { audit } = await checkIn(dir);
    expect(audit).toMatchObject({ passed: true, changed_files: ['src/app.py'], metrics: { files: 1, added_lines: 2, deleted_lines: 2, working_bytes: 4 } });
  });

  it('intent-to-add, CRLF rewrites and symlinks are counted as the reference counts them', async () => {
    const dir = repo({ 'src/app.py': 'a\nb\n', 'src/link': 'placeholder', 'README.md': 'r\n' });
    unlinkSync(join(dir, 'src/link'));
    symlinkSync('app.py', join(dir, 'src/link'));
    commitAll(dir);
    await armWith(dir, { allow: ['src/**'] });
    write(dir, { 'src/app.py': 'a\r\nb\r\n', 'src/ita.py': 'i\n' });
    git(dir, 'add', '-N', 'src/ita.py');
    unlinkSync(join(dir, 'src/link'));
    symlinkSync('elsewhere.py', join(dir, 'src/link'));
    symlinkSync('/etc/passwd', join(dir, 'src/new-link'));
    const { audit } = await checkIn(dir);
    expect(audit.changed_files).toEqual(['src/app.py', 'src/ita.py', 'src/link', 'src/new-link']);
    // app.py 2/2, ita.py 1/0, link 1/1, new-link 1 line (target never followed).
    expect(audit.metrics).toEqual({ files: 4, added_lines: 5, deleted_lines: 3, working_bytes: 6 + 2 + 12 + 11, binary_files: 0 });
  });

  it('V7: verifiers do not run when the policy fails; failures and start errors reject (phase rejected)', async () => {
    const dir = repo();
    const marker = join(tempDir(), 'ran');
    await armWith(dir, { allow: ['src/**'], verify: [`touch ${marker}`, 'false', 'cordon-missing-verifier'] });
    write(dir, { 'README.md': 'dirty\n' });
    let result = await checkIn(dir);
    expect(result.audit).toMatchObject({ passed: false, verification: [], verification_skipped: true });
    expect(existsSync(marker)).toBe(false);
    git(dir, 'checkout', '--', 'README.md');
    write(dir, { 'src/app.py': 'ok\n' });
    result = await checkIn(dir);
    expect(existsSync(marker)).toBe(true);
    expect(result.audit.violations.map((v) => v.message)).toEqual(['verifier failed (exit 1): false', 'verifier failed (cannot start): cordon-missing-verifier']);
    expect(result.state.phase).toBe('rejected');
  });

  it('a verifier stopped by a limit: the violation names the limit', async () => {
    const dir = repo();
    // The loud verifier is \`yes\`, not Node: it must pass the cap within the 0.5 s time-out, and a
    // loaded machine can take longer than that to start Node. It never ends by itself, so only the
    // cap can stop it before the time-out.
    await armWith(dir, { allow: ['src/**'], verify: ['yes x', 'sleep 5'], verifyTimeout: 0.5, verifyOutputCap: 100 });
    write(dir, { 'src/app.py': 'ok\n' });
    const result = await checkIn(dir);
    expect(result.audit.violations.map((v) => v.message)).toEqual([
      'verifier failed (output limit of 100 bytes): yes x',
      'verifier failed (timeout after 0.5 s): sleep 5',
    ]);
  });

  it('the audit hook lets plugins add violations, which also stop the verifiers', async () => {
    const dir = repo();
    const marker = join(tempDir(), 'ran');
    await armWith(dir, { allow: ['src/**'], verify: [`touch ${marker}`] });
    write(dir, { 'src/app.py': 'changed\n' });
    const hooks = { audit: new AsyncSeriesHook<[AuditContext]>(['context']) };
    let seen: AuditContext | undefined;
    hooks.audit.tapPromise('test-plugin', async (ctx) => {
      seen = ctx;
      ctx.violations.push({ code: 'no_friday_changes', message: 'no changes on Fridays', source: 'test-plugin' });
    });
    const { audit } = await check({ repo: dir, hooks });
    expect(seen).toMatchObject({ repoRoot: dir, changedPaths: ['src/app.py'], metrics: { files: 1 } });
    expect(audit.violations).toEqual([{ code: 'no_friday_changes', message: 'no changes on Fridays', source: 'test-plugin' }]);
    expect(existsSync(marker)).toBe(false);
  });
});
