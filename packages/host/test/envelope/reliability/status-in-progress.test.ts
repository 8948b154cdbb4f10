import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCordon } from '../../../../../test/support/cli.js';
import { armWith, repo, tempDir, write } from '../support.js';
import { cordonInjected, HAVE_STRACE } from './strace.js';

/**
 * Issue 13 item 4: `status` (no lock) while `arm` or `check` is between its writes reports the
 * operation in progress, naming the lock holder, or the last complete state; never "damaged".
 * strace holds cordon at chosen renames (`delay_enter`) so status runs inside those windows.
 */

function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tempDir('tmp') };
  for (const key of ['NODE_ENV', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[key];
  return env;
}

/** Runs `status --json` repeatedly while `running` is pending; returns every answer. */
async function statusesDuring(running: Promise<unknown>, dir: string, env: NodeJS.ProcessEnv): Promise<Array<{ code: number | null; out: any }>> {
  let done = false;
  void running.finally(() => (done = true));
  // Start once the lock is taken (the operation has begun).
  while (!done && !existsSync(join(dir, '.git/cordon.lock'))) await new Promise((r) => setTimeout(r, 20));
  const seen: Array<{ code: number | null; out: any }> = [];
  while (!done) {
    const r = await runCordon(['status', '--json'], { cwd: dir, env });
    seen.push({ code: r.exitCode, out: JSON.parse(r.stdout) });
  }
  return seen;
}

describe.skipIf(!HAVE_STRACE)('status while another command writes the state', () => {
  it('during arm (held between config and snapshot, and before publishing): "arm is in progress" or the armed envelope, never damaged', async () => {
    for (const when of ['2', '4']) {
      const dir = repo({ 'src/a.txt': 'a\n' });
      const env = cliEnv();
      const arm = cordonInjected(`rename:delay_enter=3000000:when=${when}`, ['arm', 'x', '--allow', 'src/**'], { cwd: dir, env });
      const seen = await statusesDuring(arm, dir, env);
      expect((await arm).exitCode).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      for (const { code, out } of seen) {
        const text = JSON.stringify(out);
        expect(text).not.toMatch(/damaged|cordon reset/);
        if (code === 0) expect(out.phase).toBe('armed');
        else {
          expect(code).toBe(2);
          expect(out.error.code).toBe('CORDON_LOCK_HELD');
          expect(out.error.message).toMatch(/^`cordon arm` \(pid \d+ on .*\) is working on this repository right now/);
        }
      }
      expect(seen.some(({ code }) => code === 2)).toBe(true);
    }
  }, 300_000);

  it('during check (held before audit.json and state.json are replaced): the last complete state, with the check named', async () => {
    for (const when of ['1', '2']) {
      const dir = repo({ 'src/a.txt': 'a\n' });
      await armWith(dir, { allow: ['src/**'] });
      write(dir, { 'src/a.txt': 'b\n' });
      const env = cliEnv();
      const check = cordonInjected(`rename:delay_enter=8000000:when=${when}`, ['check'], { cwd: dir, env });
      const seen = await statusesDuring(check, dir, env);
      expect((await check).exitCode).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      for (const { code, out } of seen) {
        expect(code).toBe(0);
        expect(['armed', 'accepted']).toContain(out.phase);
      }
      expect(seen.some(({ out }) => /^check, pid \d+ on /.test(out.operation ?? '')), JSON.stringify(seen.map((x) => x.out.operation))).toBe(true);
    }
  }, 300_000);
});
