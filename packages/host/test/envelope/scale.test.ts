import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSandbox, runCordon } from '../../../../test/support/cli.js';
import { applyChanges, buildBigRepo, trackedPath } from './big-repo.js';
import { armWith, tempDir } from './support.js';

/**
 * Issue 2: "a repository with 100,000 tracked files and 5,000 changed, added, deleted and
 * renamed files must arm and check" (the reference could not even arm one: docs/envelopes.md
 * item 16). Timing is `npm run bench:envelope`'s job; this proves it works and counts right.
 */
describe('scale', () => {
  it('arms and checks 100,000 tracked files with 5,000 changes', { timeout: 600_000 }, async () => {
    const dir = join(tempDir('big'), 'repo');
    await buildBigRepo(dir, { files: 100_000 });
    const limits = { maxFiles: 1_000_000, maxAddedLines: 1e8, maxDeletedLines: 1e8, maxWorkingBytes: 1e11, maxBinaryFiles: 1000 };
    await armWith(dir, { allow: ['src/**'], ...limits });
    const counts = applyChanges(dir, { files: 100_000 }, 5_000);
    const sandbox = makeSandbox('cordon-scale-');
    const r = await runCordon(['check', '--json'], { cwd: dir, env: sandbox.env, timeoutMs: 300_000 }).finally(() => sandbox.cleanup());
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const audit = JSON.parse(r.stdout) as { passed: boolean; changed_files: string[]; metrics: Record<string, number> };
    expect(audit.passed).toBe(true);
    expect(audit.metrics).toMatchObject({ files: counts.paths, added_lines: counts.addedLines, deleted_lines: counts.deletedLines, binary_files: 0 });
    expect(audit.changed_files).toHaveLength(counts.paths);
    expect(audit.changed_files).toContain(trackedPath(0));
    expect(audit.changed_files).toContain(trackedPath(2 * 1250 * 20).replace('.txt', '.moved.txt'));
  });
});
