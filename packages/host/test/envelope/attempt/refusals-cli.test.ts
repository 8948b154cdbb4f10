import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { makeRepo } from '../../../../../test/support/git.js';

// What `cordon run` and `cordon resume` say when they refuse, through the built CLI, with the
// codex plugin's real runner and a stand-in `codex` (--agent-bin) that prints Codex's JSON events.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-run-refusals-');
  linkPlugins(sandbox.dataDir, ['codex']);
});
afterEach(() => sandbox.cleanup());

/** A stand-in `codex exec --json` that runs `body` (sh) after reading the prompt, then reports one completed turn. */
function fakeCodex(body = ''): string {
  const path = join(sandbox.dir('bin'), `codex-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, `#!/bin/sh\ncat >/dev/null\n${body}\necho '{"type":"thread.started","thread_id":"t1"}'\necho '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'\n`);
  chmodSync(path, 0o755);
  return path;
}

const cordon = (args: string[], cwd: string) => runCordon(args, { cwd, env: sandbox.env, timeoutMs: 60_000 });
const newRepo = () => makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), { 'src/a.txt': 'a\n' }, sandbox.env);

describe('refusals of run and resume', () => {
  it('resume with nothing armed names cordon run, whose attempts it continues', async () => {
    const repo = newRepo();
    const r = await cordon(['resume'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('(`cordon resume` gives the task of a `cordon run` another attempt: run `cordon run` first)');
    expect(r.stderr).not.toContain('cordon arm');
  });

  it('a manual envelope: resume says what to do instead; run names reset and resume', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'by hand', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    const resumed = await cordon(['resume'], repo);
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain('manual envelopes cannot be resumed: `cordon arm` gave no agent the task (`cordon check` judges the change; `cordon reset` discards the envelope, after which `cordon run` gives a task to an agent)');
    const run = await cordon(['run', 'again', '--agent', 'codex', '--agent-bin', fakeCodex(), '--allow', 'src/**'], repo);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('cordon is already armed; run `cordon reset` to discard the envelope first, or `cordon resume` to give the task of an earlier `cordon run` another attempt');
    // arm itself keeps its shorter refusal.
    const armed = await cordon(['arm', 'again', '--allow', 'src/**', '--json'], repo);
    expect(JSON.parse(armed.stdout).error.message).toBe('cordon is already armed; run `cordon reset` to discard the envelope first');
  });

  it('an accepted envelope and the attempt ceiling: resume says why there is nothing to do and what would', async () => {
    const repo = newRepo();
    expect((await cordon(['run', 'edit', '--agent', 'codex', '--agent-bin', fakeCodex('echo b > src/a.txt'), '--allow', 'src/**'], repo)).exitCode).toBe(0);
    const accepted = await cordon(['resume', '--json'], repo);
    expect(accepted.exitCode).toBe(2);
    expect(JSON.parse(accepted.stdout).error.message).toBe(
      'the cordon envelope is already accepted; there is nothing to resume (`cordon reset` ends the envelope, keeping the accepted changes; `cordon run` then starts the next task)',
    );

    const other = newRepo();
    expect((await cordon(['run', 'fail', '--agent', 'codex', '--agent-bin', fakeCodex('exit 1'), '--allow', 'src/**', '--max-attempts', '1'], other)).exitCode).toBe(4);
    const limited = await cordon(['resume', '--json'], other);
    expect(limited.exitCode).toBe(2);
    expect(JSON.parse(limited.stdout).error.message).toBe(
      'attempt limit reached (1); every attempt `cordon run --max-attempts` allowed is used (`cordon check` audits what is there; `cordon reset`, then `cordon run` with a higher --max-attempts, starts again)',
    );
  });

  it('partial changes outside the policy: resume says to undo them', async () => {
    const repo = newRepo();
    expect((await cordon(['run', 'fail', '--agent', 'codex', '--agent-bin', fakeCodex('exit 1'), '--allow', 'src/**'], repo)).exitCode).toBe(4);
    writeFileSync(join(repo, 'outside.txt'), 'x\n');
    const r = await cordon(['resume', '--json'], repo);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toBe('current partial changes violate the cordon envelope; refusing to resume: path outside policy: outside.txt (added; matches no allow glob). Undo them, then run `cordon resume` again (`cordon check` prints the whole audit)');
  });

  it('an agent that commits: the violation names --allow-commits', async () => {
    const repo = newRepo();
    const commit = 'echo b > src/a.txt && git -c user.name=agent -c user.email=agent@example.invalid commit -qam agent';
    const r = await cordon(['run', 'commit', '--agent', 'codex', '--agent-bin', fakeCodex(commit), '--allow', 'src/**'], repo);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toContain('violation: HEAD changed from the armed baseline; commits are not allowed (this envelope was armed without --allow-commits, the `cordon arm` and `cordon run` option that allows them)');
  });
});
