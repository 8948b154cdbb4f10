import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCordon, type RunResult } from '../../../../../test/support/cli.js';
import { armWith, git, repo, tempDir, write } from '../support.js';
import { status } from '../../../src/envelope/status.js';
import { cordonInjected, HAVE_STRACE, wasKilled } from './strace.js';

/**
 * Issue 13 item 3: every interrupted state change is finished or rolled back by the next command.
 * Each state-changing system call of `arm`, `check` and `reset` (mkdir, link, fsync, rename,
 * unlink, rmdir: every step of building, publishing and removing `.cordon/`, the lock and the
 * private git directory) is made to SIGKILL cordon in turn; after each kill, `status` reports
 * either the state before or the state after (never a damaged one), the next command works, and
 * no leftover remains in the work tree, the git directory or the temp directory.
 */

const SYSCALLS = ['mkdir', 'link', 'fsync', 'rename', 'unlink', 'rmdir'] as const;

/** The environment of the CLI runs: the test's HOME (support.ts) and a private TMPDIR to inspect. */
function cliEnv(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  for (const key of ['NODE_ENV', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[key];
  return env;
}

async function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return runCordon(args, { cwd, env });
}

/**
 * `status` after a kill (the library call the command makes, in-process to save a process start
 * per kill): the envelope before or after the change, or nothing armed; never damaged.
 */
async function statusIsWhole(dir: string, label: string): Promise<'armed' | 'accepted' | 'none'> {
  try {
    const report = await status(dir);
    expect(['armed', 'accepted'], label).toContain(report.phase);
    return report.phase as 'armed' | 'accepted';
  } catch (error) {
    expect((error as Error).message, label).toMatch(/^nothing is armed in /);
    expect((error as Error).message, label).not.toMatch(/damaged|cordon reset/);
    return 'none';
  }
}

/** Nothing of cordon's is left but `.cordon/` itself (no scratch dirs, temp files, lock leftovers). */
function noLeftovers(dir: string, tmp: string, label: string): void {
  const root = readdirSync(dir).filter((n) => n.startsWith('.cordon') && n !== '.cordon' && n !== '.cordon.json');
  const gitDir = readdirSync(join(dir, '.git')).filter((n) => n.startsWith('cordon') || n.startsWith('.cordon'));
  const state = existsSync(join(dir, '.cordon')) ? readdirSync(join(dir, '.cordon')).filter((n) => n.endsWith('.tmp')) : [];
  const temp = readdirSync(tmp).filter((n) => n.startsWith('cordon-'));
  expect({ root, gitDir, state, temp }, label).toEqual({ root: [], gitDir: [], state: [], temp: [] });
}

/**
 * Runs `args` once per (syscall, N) with a SIGKILL injected at the N-th call, until a run is no
 * longer killed (N passed the last call). `prepare` makes a fresh repository for each run;
 * `after` checks what the kill left and that the next commands work. Returns the kill count.
 */
async function killEverywhere(args: string[], prepare: () => Promise<string>, after: (dir: string, env: NodeJS.ProcessEnv, tmp: string, label: string) => Promise<void>): Promise<number> {
  let kills = 0;
  for (const syscall of SYSCALLS) {
    for (let n = 1; n < 200; n++) {
      const dir = await prepare();
      const tmp = tempDir('tmp');
      const env = cliEnv(tmp);
      const label = `${args[0]} killed at ${syscall} #${n}`;
      const r = await cordonInjected(`${syscall}:signal=KILL:when=${n}`, args, { cwd: dir, env });
      if (!wasKilled(r)) {
        expect(r.exitCode, `${label} (not killed): ${r.stderr}`).toBe(0);
        break;
      }
      kills++;
      await after(dir, env, tmp, label);
    }
  }
  return kills;
}

describe.skipIf(!HAVE_STRACE)('SIGKILL at every state-changing step', () => {
  it('arm: afterwards nothing or a whole envelope is armed; reset and arm work; no leftovers', async () => {
    const kills = await killEverywhere(['arm', 'kill', '--allow', 'src/**'], async () => repo({ 'src/a.txt': 'a\n' }), async (dir, env, tmp, label) => {
      const seen = await statusIsWhole(dir, label);
      // Nothing armed: arming works (the killed arm's scratch is gone first); armed: it is whole.
      const armed = await cli(['arm', 'again', '--allow', 'src/**'], dir, env);
      expect(armed.exitCode, `${label}: ${armed.stderr}`).toBe(seen === 'none' ? 0 : 2);
      expect((await cli(['reset'], dir, env)).exitCode, label).toBe(0);
      noLeftovers(dir, tmp, label);
      expect(git(dir, 'status', '--porcelain', '--ignored'), label).toBe('');
    });
    expect(kills).toBeGreaterThan(10);
  }, 1_200_000);

  it('check: afterwards the state is the one before or after; the next check gives the verdict; no leftovers', async () => {
    const kills = await killEverywhere(['check'], async () => {
      const dir = repo({ 'src/a.txt': 'a\n' });
      await armWith(dir, { allow: ['src/**'] });
      write(dir, { 'src/a.txt': 'b\n' });
      return dir;
    }, async (dir, env, tmp, label) => {
      await statusIsWhole(dir, label);
      const again = await cli(['check'], dir, env);
      expect(again.exitCode, `${label}: ${again.stderr}`).toBe(0);
      noLeftovers(dir, tmp, label);
    });
    expect(kills).toBeGreaterThan(10);
  }, 1_200_000);

  it('reset: afterwards the envelope is whole or gone; arm works; no leftovers', async () => {
    const kills = await killEverywhere(['reset'], async () => {
      const dir = repo({ 'src/a.txt': 'a\n' });
      await armWith(dir, { allow: ['src/**'] });
      return dir;
    }, async (dir, env, tmp, label) => {
      const seen = await statusIsWhole(dir, label);
      if (seen !== 'none') expect((await cli(['reset'], dir, env)).exitCode, label).toBe(0);
      const armed = await cli(['arm', 'again', '--allow', 'src/**'], dir, env);
      expect(armed.exitCode, `${label}: ${armed.stderr}`).toBe(0);
      noLeftovers(dir, tmp, label);
      expect(git(dir, 'status', '--porcelain'), label).toBe('');
    });
    expect(kills).toBeGreaterThan(3);
  }, 1_200_000);
});

describe('the leftover of a reset killed by an earlier version (.cordon.remove-<pid>-<ns>/ in the root)', () => {
  it('the example: status says nothing is armed, arm succeeds (the leftover is finished first), reset too', async () => {
    for (const next of ['arm', 'reset'] as const) {
      const dir = repo({ 'src/a.txt': 'a\n' });
      await armWith(dir, { allow: ['src/**'] });
      const leftover = join(dir, '.cordon.remove-4242-123456789');
      renameSync(join(dir, '.cordon'), leftover);
      await expect(status(dir)).rejects.toThrow(/nothing is armed/);
      const env = cliEnv(tempDir('tmp'));
      const r = await cli(next === 'arm' ? ['arm', 'x', '--allow', 'src/**'] : ['reset'], dir, env);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(existsSync(leftover)).toBe(false);
    }
  });

  it('a directory of that name that is not cordon\'s is left alone', async () => {
    const dir = repo({ 'src/a.txt': 'a\n', '.gitignore': '.cordon.remove-*\n' });
    mkdirSync(join(dir, '.cordon.remove-1-2'));
    write(dir, { '.cordon.remove-1-2/mine.txt': 'mine\n' });
    const env = cliEnv(tempDir('tmp'));
    expect((await cli(['reset'], dir, env)).exitCode).toBe(0);
    expect(existsSync(join(dir, '.cordon.remove-1-2/mine.txt'))).toBe(true);
  });
});
