import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../../test/support/git.js';
import { cordonInjected, HAVE_STRACE } from './strace.js';

/**
 * Issue 13 item 8: an I/O error while saving the verdict after the verifiers ran never runs them
 * again: exit 2 with CORDON_STATE_WRITE naming the state directory and the verdict not saved.
 */

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-save-error-');
});
afterEach(() => sandbox.cleanup());

describe.skipIf(!HAVE_STRACE)('an error persisting the verdict', () => {
  it('EROFS, ENOSPC, EACCES on the rename, EIO from fsync: verifiers ran once, exit 2, CORDON_STATE_WRITE names .cordon and the verdict; the state is unchanged', async () => {
    const faults = [
      // Every rename fails: audit.json is the first write after the verifiers.
      'rename:error=EROFS',
      'rename:error=EACCES',
      // audit.json saved, state.json not.
      'rename:error=ENOSPC:when=2',
      // fsync #1 is audit.json's temp file (the lock is not fsynced: src/envelope/lock.ts).
      'fsync:error=EIO:when=1',
    ];
    const cases: Array<{ fault: string; fast: boolean; rejected: boolean }> = [
      ...faults.map((fault) => ({ fault, fast: true, rejected: false })),
      { fault: faults[0]!, fast: false, rejected: false },
      { fault: faults[2]!, fast: false, rejected: false },
      { fault: faults[0]!, fast: true, rejected: true },
      { fault: faults[3]!, fast: false, rejected: true },
    ];
    let n = 0;
    for (const { fault, fast, rejected } of cases) {
      const repo = makeRepo(sandbox.dir(`repo-${++n}`), { 'src/a.txt': 'a\n' }, sandbox.env);
      const counter = join(sandbox.dir('count'), `ran-${n}`);
      const verify = `node -e "require('fs').appendFileSync(process.argv[1], 'ran\\n')" ${counter}`;
      expect((await runCordon(['arm', 'x', '--allow', 'src/**', '--verify', verify], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
      writeFiles(repo, rejected ? { 'src/a.txt': 'b\n', 'outside.txt': 'x\n' } : { 'src/a.txt': 'b\n' });
      const env = fast ? sandbox.env : { ...sandbox.env, CORDON_NO_FAST_ROUTE: '1' };
      const label = `${fault} ${fast ? 'fast' : 'oclif'} ${rejected ? 'rejected' : 'accepted'}`;
      const r = await cordonInjected(fault, ['check', '--json'], { cwd: repo, env });
      expect(r.exitCode, `${label}: ${r.stderr}`).toBe(2);
      const error = JSON.parse(r.stdout).error;
      expect(error.code, label).toBe('CORDON_STATE_WRITE');
      expect(error.details).toMatchObject({ dir: join(repo, '.cordon'), verdict: rejected ? 'rejected' : 'accepted' });
      expect(error.message).toContain(`could not save it in ${join(repo, '.cordon')}`);
      // Verifiers run once per check; a rejected policy runs none.
      expect(readCount(counter), label).toBe(rejected ? 0 : 1);
      expect(JSON.parse(readFileSync(join(repo, '.cordon/state.json'), 'utf8')).phase, label).toBe('armed');
      // With the fault gone the same check saves its verdict.
      const again = await runCordon(['check'], { cwd: repo, env });
      expect(again.exitCode, label).toBe(rejected ? 3 : 0);
      expect(readCount(counter), label).toBe(rejected ? 0 : 2);
    }
  }, 600_000);

  it('the human form prints the error on stderr with the code, nothing on stdout', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    expect((await runCordon(['arm', 'x', '--allow', 'src/**'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
    const r = await cordonInjected('rename:error=EROFS', ['check'], { cwd: repo, env: sandbox.env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.replace(/\s+/g, ' ')).toMatch(/Error: the audit ran \(verdict: accepted\) but cordon could not save it in .*EROFS.* Code: CORDON_STATE_WRITE/);
  });
});

function readCount(path: string): number {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}
