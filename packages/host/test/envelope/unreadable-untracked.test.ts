import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unprivilegedRepo } from '../../../../test/support/unprivileged.js';
import { NOTHING_IGNORED } from '../../src/envelope/git/ignore-oracle.js';
import { measureUntracked } from '../../src/envelope/evidence/measure.js';
import { collectUntracked } from '../../src/envelope/evidence/untracked.js';
import { compilePathRules } from '../../src/envelope/policy/policy.js';

// An untracked directory the check cannot enter (no search permission, or no directory at all by
// the time it looks) was an uncaught EACCES: exit 1 with a raw system error. It is a violation
// now, like an unreadable untracked file: what it may hold is never accepted unseen.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-unreadable-'));
});
afterEach(() => {
  // The directory the last test locks: given back its permissions, so it can be removed.
  const locked = join(root, 'home/repo/src/nd');
  if (existsSync(locked)) chmodSync(locked, 0o755);
  rmSync(root, { recursive: true, force: true });
});

const RULES = compilePathRules({ allow: ['**'], deny: [], allow_ignored: [] });

describe('an untracked directory that cannot be entered', () => {
  it('is listed as unreadable_dir with the system error (a path git listed as a directory that is none: ENOTDIR)', async () => {
    writeFileSync(join(root, 'was-a-dir'), 'now a file\n');
    const found = await collectUntracked({ root, listed: Promise.resolve(['was-a-dir/']), oracle: () => Promise.resolve(NOTHING_IGNORED), snapshot: { entries: {}, gitignores: {} }, rules: RULES, allowIgnored: [] });
    expect(found.ignored).toEqual([]);
    // In words, without the code or the internal probe's path (`was-a-dir/.git`).
    expect(found.untracked).toEqual([{ path: 'was-a-dir/', kind: 'unreadable_dir', error: 'not a directory' }]);
  });

  it('is a file_unreadable violation when measured', () => {
    const scan = measureUntracked(root, [{ path: 'nd/', kind: 'unreadable_dir', error: 'permission denied' }], 1 << 20);
    expect(scan.violations).toEqual([{ code: 'file_unreadable', message: 'cannot read untracked directory: nd/: permission denied', path: 'nd/' }]);
    expect(scan.measures.size).toBe(0);
  });

  it('makes `cordon check` reject (exit 3) naming the directory, not fail with exit 1', async () => {
    // Root enters any directory: run as nobody then.
    const { repo, cordon, own } = await unprivilegedRepo(root, { 'src/app.py': 'x\n' });
    const armed = await cordon(['arm', 'unreadable', '--allow', 'src/**']);
    expect({ exitCode: armed.exitCode, stderr: armed.stderr }).toEqual({ exitCode: 0, stderr: '' });
    mkdirSync(join(repo, 'src/nd'));
    writeFileSync(join(repo, 'src/nd/z.txt'), 'z\n');
    await own(join(repo, 'src/nd'));
    chmodSync(join(repo, 'src/nd'), 0);
    const run = await cordon(['check', '--json']);
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 3, stderr: '' });
    const audit = JSON.parse(run.stdout) as { passed: boolean; violations: Array<{ code: string; path: string; message: string }> };
    expect(audit.passed).toBe(false);
    // Found by a fresh user: the message named the internal probe (`lstat '…/src/nd/.git'`) and EACCES.
    expect(audit.violations).toEqual([{ code: 'file_unreadable', path: 'src/nd/', message: 'cannot read untracked directory: src/nd/: permission denied' }]);
  });
});
