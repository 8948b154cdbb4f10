import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';

// Found by a fresh user's walkthrough: on a branch behind main, `cordon check --base main` compared
// the two trees and blamed the branch for .cordon.json, which only main had changed after the fork.
// A range is what the head changes since it forked, as `git log base..head` and a pull request read it.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-range-base-');
});
afterEach(() => sandbox.cleanup());

const cordon = (args: string[], cwd: string) => runCordon(args, { env: sandbox.env, cwd });
const commit = (repo: string, message: string) => {
  git(repo, ['add', '-A'], sandbox.env);
  git(repo, ['commit', '-qm', message], sandbox.env);
};
const rev = (repo: string, name: string) => git(repo, ['rev-parse', name], sandbox.env).trim();

describe('check --base: the range starts where the head forked', () => {
  it('changes the base made after the fork are not the head\'s; a note says where the range started', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { '.cordon.json': JSON.stringify({ allow: ['src/**'] }), 'src/a.js': 'a\n', 'README.md': 'r\n' }, sandbox.env);
    const fork = rev(repo, 'HEAD');
    git(repo, ['checkout', '-qb', 'side'], sandbox.env);
    writeFiles(repo, { 'src/side.js': 's\n' });
    commit(repo, 'side');
    git(repo, ['checkout', '-q', '-'], sandbox.env);
    // The base moves on: a change outside the policy, and a new policy file.
    writeFiles(repo, { 'README.md': 'changed on main\n', '.cordon.json': JSON.stringify({ allow: ['src/**', 'docs/**'] }) });
    commit(repo, 'main moves on');
    const main = git(repo, ['rev-parse', '--abbrev-ref', 'HEAD'], sandbox.env).trim();
    git(repo, ['checkout', '-q', 'side'], sandbox.env);
    const r = await cordon(['check', '--base', main], repo);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`note: audited from ${fork.slice(0, 12)}, where HEAD forked from --base ${main} (${rev(repo, main).slice(0, 12)})`);
    const json = JSON.parse((await cordon(['check', '--base', main, '--json'], repo)).stdout);
    expect(json.changed_files).toEqual(['src/side.js']);
    expect(json.baseline).toBe(fork);
    // What `git diff base...head` (three dots, from the merge base) names: the same path.
    expect(git(repo, ['diff', '--name-only', `${main}...HEAD`], sandbox.env).trim()).toBe('src/side.js');
  });

  it('a base the head contains (a branch up to date, a merge commit) is the range\'s start, without a note', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { '.cordon.json': JSON.stringify({ allow: ['src/**'] }), 'src/a.js': 'a\n' }, sandbox.env);
    const base = rev(repo, 'HEAD');
    writeFiles(repo, { 'src/b.js': 'b\n', 'README.md': 'r\n' });
    commit(repo, 'head');
    const r = await cordon(['check', '--base', base, '--json'], repo);
    expect(r.exitCode).toBe(3);
    const json = JSON.parse(r.stdout);
    expect([json.baseline, json.changed_files, json.notes ?? []]).toEqual([base, ['README.md', 'src/b.js'], []]);
  });

  it('histories that never meet are compared tree to tree, and the note says so', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { '.cordon.json': JSON.stringify({ allow: ['**'] }), 'src/a.js': 'a\n' }, sandbox.env);
    const main = git(repo, ['rev-parse', '--abbrev-ref', 'HEAD'], sandbox.env).trim();
    git(repo, ['checkout', '-q', '--orphan', 'other'], sandbox.env);
    execFileSync('git', ['rm', '-rq', '--cached', '.'], { cwd: repo, env: sandbox.env });
    writeFiles(repo, { '.cordon.json': JSON.stringify({ allow: ['**'] }), 'src/z.js': 'z\n' });
    commit(repo, 'orphan');
    const r = await cordon(['check', '--base', main], repo);
    expect(r.stdout).toContain(`note: --base ${main} and HEAD have no common ancestor in this clone`);
    expect(r.exitCode, r.stderr).toBe(0);
  });
});
