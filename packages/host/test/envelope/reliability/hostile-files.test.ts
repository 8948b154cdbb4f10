import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { git, makeRepo } from '../../../../../test/support/git.js';

/**
 * Issue 13 item 11: files cordon reads that others control (`.cordon/*.json`, which the audited
 * agent can replace; a committed `.cordon.json`) are read without following links out of the
 * repository, without blocking, only as regular files, with a size limit; a refusal is exit 2
 * naming the path and never shows the content of a file that is not the user's input.
 */

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-hostile-');
});
afterEach(() => sandbox.cleanup());

// A bound on the child only so a regression fails instead of hanging the suite; no assertion is timed.
const cordon = (args: string[], cwd: string) => runCordon(args, { cwd, env: sandbox.env, timeoutMs: 60_000 });
const SECRET = 'root:$6$SECRET-HASH-NOBODY-MAY-SEE:19000:0:99999:7:::';

/** Output with oclif's line wrapping undone. */
const flat = (r: { stdout: string; stderr: string }) => (r.stdout + r.stderr).replace(/\s+/g, ' ');

function mkfifo(path: string): void {
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
}

async function armedRepo(): Promise<string> {
  const repo = makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), { 'src/a.txt': 'a\n' }, sandbox.env);
  expect((await cordon(['arm', 'hostile', '--allow', 'src/**'], repo)).exitCode).toBe(0);
  return repo;
}

describe('.cordon/ files replaced by the audited agent', () => {
  for (const file of ['state.json', 'config.json', 'snapshot.json']) {
    it(`${file} as a FIFO, a link to /dev/zero, a link out of the repository: status and check exit 2 naming the path`, async () => {
      const secretFile = join(sandbox.dir('etc'), 'shadow');
      writeFileSync(secretFile, SECRET);
      const plants: Array<[string, (path: string) => void, RegExp]> = [
        ['fifo', mkfifo, /is not a regular file/],
        ['/dev/zero', (p) => symlinkSync('/dev/zero', p), /is a symbolic link/],
        ['secret', (p) => symlinkSync(secretFile, p), /is a symbolic link/],
      ];
      for (const [name, plant, why] of plants) {
        const repo = await armedRepo();
        const path = join(repo, '.cordon', file);
        unlinkSync(path);
        plant(path);
        for (const args of [['status'], ['check', '--json']]) {
          const r = await cordon(args, repo);
          expect({ name, args, code: r.exitCode }).toEqual({ name, args, code: 2 });
          const text = flat(r);
          expect(text, `${name} ${args.join(' ')}`).toMatch(why);
          if (args.includes('--json')) expect(JSON.parse(r.stdout).error.message).toContain(path);
          expect(text).not.toContain('SECRET-HASH');
        }
      }
    });
  }

  it('a state file larger than the limit is refused unread; a valid copy of state.json elsewhere linked in is refused too', async () => {
    const repo = await armedRepo();
    const elsewhere = join(sandbox.dir('copy'), 'state.json');
    copyFileSync(join(repo, '.cordon/state.json'), elsewhere);
    unlinkSync(join(repo, '.cordon/state.json'));
    symlinkSync(elsewhere, join(repo, '.cordon/state.json'));
    const r = await cordon(['check'], repo);
    expect(r.exitCode).toBe(2);
    expect(flat(r)).toMatch(/symbolic link/);
  });
});

describe('a committed .cordon.json that is not a plain file of the repository', () => {
  it('a link to /etc/shadow (here a stand-in with a secret): arm exits 2 naming .cordon.json, never printing the secret', async () => {
    const secretFile = join(sandbox.dir('etc'), 'shadow');
    writeFileSync(secretFile, SECRET);
    linkPlugins(sandbox.dataDir, ['claude-code']);
    for (const target of [secretFile, '/dev/zero', '/etc/passwd', '../outside.json']) {
      const repo = makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), { 'src/a.txt': 'a\n' }, sandbox.env);
      writeFileSync(join(repo, '..', 'outside.json'), '{"allow": ["**"]}');
      symlinkSync(target, join(repo, '.cordon.json'));
      git(repo, ['add', '.cordon.json'], sandbox.env);
      git(repo, ['commit', '-q', '-m', 'policy link'], sandbox.env);
      for (const args of [['arm', 'x', '--allow', 'src/**'], ['run', 'x', '--allow', 'src/**', '--agent-bin', '/bin/true']]) {
        const r = await cordon(args, repo);
        expect({ target, args: args[0], code: r.exitCode }).toEqual({ target, args: args[0], code: 2 });
        expect(flat(r)).toContain('.cordon.json');
        expect(flat(r)).toMatch(/symbolic link that leaves/);
        expect(r.stderr).not.toContain('SECRET-HASH');
        expect(r.stderr).not.toContain('root:x:0:0');
      }
      rmSync(join(repo, '..', 'outside.json'));
    }
  });

  it('a link that stays inside the work tree is followed; a dangling link and a FIFO are refused with the path', async () => {
    const repo = makeRepo(sandbox.dir('inside'), { 'src/a.txt': 'a\n', 'policy/cordon.json': '{"allow": ["src/**"], "max-files": 3}\n' }, sandbox.env);
    symlinkSync('policy/cordon.json', join(repo, '.cordon.json'));
    git(repo, ['add', '.cordon.json'], sandbox.env);
    git(repo, ['commit', '-q', '-m', 'policy link'], sandbox.env);
    const armed = await cordon(['arm', 'x', '--json'], repo);
    expect(armed.exitCode, armed.stderr).toBe(0);
    expect(JSON.parse(armed.stdout)).toMatchObject({ phase: 'armed' });
    expect(JSON.parse(readFileSync(join(repo, '.cordon/config.json'), 'utf8')).policy.limits.max_files).toBe(3);

    const dangling = makeRepo(sandbox.dir('dangling'), { 'src/a.txt': 'a\n' }, sandbox.env);
    symlinkSync('nowhere.json', join(dangling, '.cordon.json'));
    git(dangling, ['add', '.cordon.json'], sandbox.env);
    git(dangling, ['commit', '-q', '-m', 'dangling'], sandbox.env);
    const r = await cordon(['arm', 'x', '--allow', 'src/**'], dangling);
    expect(r.exitCode).toBe(2);
    expect(flat(r)).toMatch(/\.cordon\.json: no such file \(or a dangling symbolic link\)/);

    const fifo = makeRepo(sandbox.dir('fifo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    mkfifo(join(fifo, '.cordon.json'));
    const f = await cordon(['arm', 'x', '--allow', 'src/**'], fifo);
    expect(f.exitCode).toBe(2);
    expect(flat(f)).toMatch(/\.cordon\.json.*not a regular file/);
  });
});
