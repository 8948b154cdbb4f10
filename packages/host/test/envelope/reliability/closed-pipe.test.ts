import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cordonIntoClosedPipe as sharedIntoClosedPipe, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../../test/support/git.js';

/**
 * Issue 13 item 7: a reader that closes stdout early (`cordon check --json | head -c 10`) ends
 * the command quietly with its own exit code, for every command (bin/run.cjs handles EPIPE once).
 */

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-pipe-');
});
afterEach(() => sandbox.cleanup());

/** {@link sharedIntoClosedPipe} in `cwd` with the sandbox's environment by default. */
const cordonIntoClosedPipe = (args: string[], cwd: string, keep: number, env: NodeJS.ProcessEnv = sandbox.env) => sharedIntoClosedPipe(args, { cwd, env }, keep);

/** A repository armed with `--allow 'src/**'` and 3,000 new files outside it (a large rejection). */
async function rejectedRepo(): Promise<string> {
  const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
  expect((await runCordon(['arm', 'pipe', '--allow', 'src/**'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
  const files: Record<string, string> = {};
  for (let i = 0; i < 3000; i++) files[`out/file-${i}.txt`] = `${i}\n`;
  writeFiles(repo, files);
  return repo;
}

describe('a closed stdout (EPIPE)', () => {
  it('check --json | head -c 10 on a rejected change: exit 3, no stack trace (fast route and oclif)', async () => {
    const repo = await rejectedRepo();
    for (const env of [sandbox.env, { ...sandbox.env, CORDON_NO_FAST_ROUTE: '1' }]) {
      for (const args of [['check', '--json'], ['check']]) {
        for (const keep of [10, 0]) {
          const r = await cordonIntoClosedPipe(args, repo, keep, env);
          expect({ args, keep, code: r.code, stderr: r.stderr }).toEqual({ args, keep, code: 3, stderr: '' });
        }
      }
    }
  });

  it('an accepted check keeps exit 0, status and info keep theirs, a refusal keeps exit 2', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    expect((await runCordon(['arm', 'pipe', '--allow', 'src/**'], { cwd: repo, env: sandbox.env })).exitCode).toBe(0);
    writeFiles(repo, { 'src/a.txt': 'b\n' });
    expect((await cordonIntoClosedPipe(['check', '--json'], repo, 0)).code).toBe(0);
    for (const args of [['status'], ['status', '--json'], ['info'], ['info', '--json']]) {
      const r = await cordonIntoClosedPipe(args, repo, 0);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
    const other = makeRepo(sandbox.dir('other'), { 'a.txt': 'a\n' }, sandbox.env);
    const refused = await cordonIntoClosedPipe(['check', '--json'], other, 0);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain('EPIPE');
  });
});
