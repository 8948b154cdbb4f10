import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runProcess } from '../../../../test/support/cli.js';
import { unprivilegedRepo } from '../../../../test/support/unprivileged.js';

// Counting lines reads every changed tracked file, and git's whole diff stopped at one it could
// not read (`fatal: cannot hash <path>`): a file the agent made unreadable, or replaced by a FIFO,
// turned the verdict into a refusal (exit 2, "git diff exited 128") instead of a rejection.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-unreadable-tracked-'));
});
afterEach(async () => {
  await runProcess(['chmod', '-R', 'u+rwX', root]);
  rmSync(root, { recursive: true, force: true });
});

interface Audit {
  passed: boolean;
  metrics: { files: number; added_lines: number; binary_files: number };
  violations: Array<{ code: string; path?: string; message: string }>;
}

async function armed() {
  const repo = await unprivilegedRepo(root, { 'src/a.txt': 'a\n', 'src/b.txt': 'b\n', 'src/c.txt': 'c\n', 'src/keep/k.txt': 'k\n' });
  const arm = await repo.cordon(['arm', 'tracked', '--allow', 'src/**']);
  expect({ exitCode: arm.exitCode, stderr: arm.stderr }).toEqual({ exitCode: 0, stderr: '' });
  return repo;
}

async function check(repo: Awaited<ReturnType<typeof armed>>, env: Record<string, string> = {}): Promise<Audit> {
  const run = await repo.cordon(['check', '--json'], env);
  expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 3, stderr: '' });
  return JSON.parse(run.stdout) as Audit;
}

describe('a changed tracked file git cannot read', () => {
  it('without read permission, and one replaced by a FIFO: rejected (exit 3) naming both; the other changes still counted', async () => {
    const repo = await armed();
    appendFileSync(join(repo.repo, 'src/a.txt'), 'more\n');
    chmodSync(join(repo.repo, 'src/a.txt'), 0);
    rmSync(join(repo.repo, 'src/b.txt'));
    await runProcess(['mkfifo', join(repo.repo, 'src/b.txt')]);
    appendFileSync(join(repo.repo, 'src/c.txt'), 'one\ntwo\n');
    await repo.own(join(repo.repo, 'src'));
    const audit = await check(repo);
    expect(audit.passed).toBe(false);
    expect(audit.violations).toEqual([
      { code: 'file_unreadable', path: 'src/a.txt', message: expect.stringMatching(/^cannot read changed file: src\/a\.txt: EACCES/) },
      { code: 'unsupported_file_type', path: 'src/b.txt', message: 'changed path has unsupported file type: src/b.txt' },
    ]);
    // c.txt's two lines are counted; the two unreadable files count as binary.
    expect(audit.metrics).toMatchObject({ files: 3, added_lines: 2, binary_files: 2 });
  });

  it('is rejected the same way through oclif (CORDON_NO_FAST_ROUTE)', async () => {
    const repo = await armed();
    appendFileSync(join(repo.repo, 'src/a.txt'), 'more\n');
    chmodSync(join(repo.repo, 'src/a.txt'), 0);
    const audit = await check(repo, { CORDON_NO_FAST_ROUTE: '1' });
    expect(audit.violations.map((v) => [v.code, v.path])).toEqual([['file_unreadable', 'src/a.txt']]);
  });
});

describe('an untracked FIFO', () => {
  it('is left out as git leaves it out, in a directory git knows and in a new one alike', async () => {
    const repo = await armed();
    await runProcess(['mkfifo', join(repo.repo, 'src/keep/in-known.fifo')]);
    mkdirSync(join(repo.repo, 'src/new'));
    await runProcess(['mkfifo', join(repo.repo, 'src/new/in-new.fifo')]);
    appendFileSync(join(repo.repo, 'src/c.txt'), 'x\n');
    await repo.own(join(repo.repo, 'src'));
    const run = await repo.cordon(['check', '--json']);
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect((JSON.parse(run.stdout) as Audit).metrics).toMatchObject({ files: 1, added_lines: 1 });
  });
});
