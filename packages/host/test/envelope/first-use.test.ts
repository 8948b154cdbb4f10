import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git as runGit } from '../../src/envelope/git/run-git.js';
import { baseGitEnv } from '../../src/envelope/git/repo.js';
import { refusalAnnotation } from '../../src/envelope/formats/github.js';
import { CORDON_BIN, makeSandbox, runCordon, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo } from '../../../../test/support/git.js';

/**
 * What a new user met in the envelope commands (arm, check, reset, status), each on real git
 * repositories through the built `cordon` bin: every refusal is exit 2 and names what to do.
 */

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-first-use-');
});
afterEach(() => sandbox.cleanup());

const cordon = (args: string[], cwd?: string) => runCordon(args, { env: sandbox.env, cwd });
const newRepo = (files: Record<string, string> = { 'src/app.py': 'print("hello")\n' }) => makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), files, sandbox.env);

describe('arm', () => {
  it('in a repository without a commit: says there is none yet and to make one (exit 2)', async () => {
    const dir = sandbox.dir('empty');
    git(dir, ['init', '-q', '-b', 'trunk'], sandbox.env);
    const r = await cordon(['arm', 'x', '--allow', 'src/**'], dir);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('has no commit yet (HEAD names the branch "trunk", which has none); make a first commit');
    expect(r.stderr).not.toContain('Needed a single revision');
  });

  it('warns about a verifier whose #! interpreter is missing, and arms all the same', async () => {
    const repo = newRepo({ 'src/app.py': 'x\n', 'verify.sh': '#!/nonexistent/bash\nexit 0\n' });
    chmodSync(join(repo, 'verify.sh'), 0o755);
    git(repo, ['commit', '-q', '-am', 'executable'], sandbox.env);
    const r = await cordon(['arm', 'x', '--allow', 'src/**', '--verify', './verify.sh', '--json'], repo);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ phase: 'armed' });
    expect(r.stderr).toContain('warning: verifier `./verify.sh` cannot start here now (`./verify.sh`: its interpreter /nonexistent/bash (the #! line) was not found)');
    // check fails it in the same words.
    const checked = await cordon(['check'], repo);
    expect(checked.exitCode).toBe(3);
    expect(checked.stdout).toContain('its interpreter /nonexistent/bash (the #! line) was not found');
  });
});

describe('check', () => {
  it('--head without --base says --head needs --base, not that it is a policy flag', async () => {
    const repo = newRepo();
    const r = await cordon(['check', '--head', 'HEAD'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--head needs --base');
    expect(r.stderr).not.toContain('policy');
    // With a policy flag as well, the policy explanation stands and names both.
    const both = await cordon(['check', '--head', 'HEAD', '--allow', 'src/**'], repo);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--head, --allow apply only to a committed range: add --base REF');
  });
});

describe('.cordon.json keys', () => {
  it('a key named like a member of every object (constructor, __proto__) is an unknown key (exit 2), never armed past', async () => {
    for (const key of ['constructor', '__proto__']) {
      const repo = newRepo({ 'src/app.py': 'x\n', '.cordon.json': `{"allow": ["src/**"], "${key}": {"deny": ["src/**"]}}` });
      // Before, arm took it for a known key, dropped it unchecked and armed (exit 0).
      const r = await cordon(['arm', 'x'], repo);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`.cordon.json: unknown key "${key}"`);
      expect(existsSync(join(repo, '.cordon'))).toBe(false);
    }
  });
});

describe('.cordon.json bytes', () => {
  it('a byte that is not UTF-8 is refused naming where (arm and check --base, exit 2); the \\udcXX spelling of such a name arms and matches', async () => {
    // A deny glob saved in Latin-1: before, the byte was decoded as U+FFFD and arm armed a glob
    // matching nothing the repository holds (exit 0), so the directory it named was unprotected.
    const latin1 = Buffer.concat([Buffer.from('{"allow": ["**"],\n  "deny": ["geheim'), Buffer.from([0xe4]), Buffer.from('/**"]}\n')]);
    const repo = newRepo({ 'src/app.py': 'x\n' });
    writeFileSync(join(repo, '.cordon.json'), latin1);
    git(repo, ['add', '-A'], sandbox.env);
    git(repo, ['commit', '-qm', 'latin-1 policy'], sandbox.env);
    const r = await cordon(['arm', 'x'], repo);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain('.cordon.json is not UTF-8: byte 0xe4 at line 2, column 19');
    expect(r.stderr).toContain('Code: CORDON_BAD_INPUT');
    expect(existsSync(join(repo, '.cordon'))).toBe(false);
    const range = await cordon(['check', '--base', 'HEAD'], repo);
    expect(range.exitCode, range.stderr).toBe(2);
    expect(range.stderr).toMatch(/\.cordon\.json in [0-9a-f]{12} is not UTF-8: byte 0xe4 at line 2, column 19/);

    // The escape the message offers is the name cordon --json shows, and the glob then holds.
    writeFileSync(join(repo, '.cordon.json'), '{"allow": ["**"], "deny": ["geheim\\udce4/**"]}\n');
    git(repo, ['commit', '-qam', 'escaped policy'], sandbox.env);
    expect((await cordon(['arm', 'x'], repo)).exitCode).toBe(0);
    const dir = Buffer.concat([Buffer.from(repo + '/geheim'), Buffer.from([0xe4])]);
    mkdirSync(dir);
    writeFileSync(Buffer.concat([dir, Buffer.from('/key')]), 'k\n');
    const checked = await cordon(['check'], repo);
    expect(checked.exitCode).toBe(3);
    expect(checked.stdout).toContain('matches the deny glob geheim\\udce4/**');
  });
});

describe('a glob given with a byte that is not UTF-8', () => {
  it('arms with a warning that the byte became U+FFFD and how to write the glob so it matches', async () => {
    const repo = newRepo({ 'src/app.py': 'x\n' });
    // The shell passes the raw byte 0xff; Node's argv holds U+FFFD in its place. Before, arm
    // armed the deny glob without a word, and it protected nothing (exit 0, no warning).
    const r = await runProcess(['sh', '-c', 'exec "$0" "$1" arm x --allow "**" --deny "secret$(printf "\\377")/**"', process.execPath, CORDON_BIN], { env: sandbox.env, cwd: repo });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: deny glob secret\ufffd/** holds U+FFFD, which a byte that is not UTF-8 becomes in a command-line argument');
    expect(r.stderr).toContain('"deny": ["secret\\udcff/**"]');
    // A glob without it gets no such warning.
    expect((await cordon(['reset'], repo)).exitCode).toBe(0);
    expect((await cordon(['arm', 'x', '--allow', '**'], repo)).stderr).not.toContain('U+FFFD');
  });
});

describe('check --base with an empty revision', () => {
  it('refuses --base "" and --head "" by name (exit 2), never checking the armed envelope with the policy flags dropped', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'x', '--allow', '**'], repo)).exitCode).toBe(0);
    writeFileSync(join(repo, 'outside.txt'), 'x\n');
    // A CI script's `--base "$BASE_SHA"` with the variable unset. Before, an empty --base was read
    // as no --base: the armed envelope (allow **) was checked and accepted (exit 0), --allow unseen.
    const r = await cordon(['check', '--base', '', '--allow', 'src/**'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--base "": a revision cannot be empty');
    expect(r.stderr).toContain('Code: CORDON_BAD_INPUT');
    expect(r.stdout).toBe('');
    const j = await cordon(['check', '--base', '', '--json'], repo);
    expect(j.exitCode).toBe(2);
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { flag: '--base', value: '' } });
    // An empty --head was git's `Needed a single revision` as a repository error.
    const h = await cordon(['check', '--base', 'HEAD', '--head', ' '], repo);
    expect(h.exitCode).toBe(2);
    expect(h.stderr).toContain('--head " ": a revision cannot be empty');
    expect(h.stderr).not.toContain('Needed a single revision');
  });
});

describe('check --format github, refused', () => {
  it('prints an ::error workflow command on stdout besides the Error: text, escaped as every workflow command', async () => {
    const repo = newRepo();
    git(repo, ['branch', '50%'], sandbox.env);
    const r = await cordon(['check', '--base', '50%', '--format', 'github'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Error: the base commit 50% (');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^::error title=cordon%3A refused \(CORDON_BAD_INPUT\)::the base commit 50%25 \([0-9a-f]{12}\) has no \.cordon\.json, /);
    // The same refusal in other formats prints nothing on stdout; a refusal while the flags are parsed is annotated too.
    expect((await cordon(['check', '--base', '50%'], repo)).stdout).toBe('');
    const parsed = await cordon(['check', '--base', '50%', '--format=github', '--max-files', 'x'], repo);
    expect(parsed.exitCode).toBe(2);
    expect(parsed.stdout).toMatch(/^::error title=cordon%3A refused \(CORDON_BAD_INPUT\)::--max-files: expected /);
  });

  it('escapes %, CR and LF in the message, and : and , in the title', () => {
    expect(refusalAnnotation({ code: 'A,B:C', message: '100%\r\nnext ::error::x' })).toBe('::error title=cordon%3A refused (A%2CB%3AC)::100%25%0D%0Anext ::error::x');
  });
});

describe('status', () => {
  it('of a live envelope names commands the user can run, not `arm --live` (which an armed repository refuses)', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'x', '--allow', 'src/**', '--live'], repo)).exitCode).toBe(0);
    const r = await cordon(['status'], repo);
    expect(r.exitCode).toBe(0);
    const live = r.stdout.split('\n').find((line) => line.startsWith('live: '));
    expect(live).toContain('`cordon doctor` says which agents have their hooks installed, `cordon install-hooks` installs them');
    expect(live).not.toContain('cordon arm');
  });
});

/** Cuts `.git/index` to its first 20 bytes, as the user did: git then fails with `index file smaller than expected`. */
function breakIndex(repo: string): void {
  writeFileSync(join(repo, '.git/index'), readFileSync(join(repo, '.git/index')).subarray(0, 20));
}

describe('reset with a damaged index', () => {
  it('removes an envelope whose every file is cordon\'s own, though git cannot say what it tracks', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'x', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    breakIndex(repo);
    const r = await cordon(['reset'], repo);
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(r.stdout).toContain('reset: removed the envelope');
    expect(existsSync(join(repo, '.cordon'))).toBe(false);
  });

  it('removes only cordon\'s own files when .cordon/ holds anything else, and leaves that as it is', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'x', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    writeFileSync(join(repo, '.cordon/notes.txt'), 'mine\n');
    breakIndex(repo);
    const r = await cordon(['reset'], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('reset: left "notes.txt" in .cordon/: cordon did not write it');
    expect(readdirSync(join(repo, '.cordon'))).toEqual(['notes.txt']);
    expect(readFileSync(join(repo, '.cordon/notes.txt'), 'utf8')).toBe('mine\n');
    // What is left is not cordon's: refused, and whether git tracks it is not known, so both ways out are named.
    const again = await cordon(['reset'], repo);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('holds "notes.txt", which cordon does not write');
    expect(again.stderr).toContain('`mv .cordon <another name>`, or `git mv .cordon <another name>` and commit if git tracks files in it');
  });

  it('git errors name the index by its absolute path, from plain git as from the audit\'s private git directory', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'x', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    breakIndex(repo);
    const index = join(realpathSync(repo), '.git/index');
    const checked = await cordon(['check'], repo);
    expect(checked.exitCode).toBe(2);
    expect(checked.stderr).toContain(`fatal: ${index}: index file smaller than expected`);
    // Plain git in the user's repository (what reset asked) names it relative; cordon names it absolute.
    const plain = await runGit({ cwd: realpathSync(repo), env: baseGitEnv(sandbox.env) }, ['ls-files']).catch((error: Error) => error.message);
    expect(plain).toBe(`git ls-files exited 128: fatal: ${index}: index file smaller than expected`);
  });
});

describe('a .cordon/ cordon did not make', () => {
  it('untracked: the advice is `mv`, which works; tracked: `git mv` and commit', async () => {
    const repo = newRepo();
    mkdirSync(join(repo, '.cordon'));
    writeFileSync(join(repo, '.cordon/notes.txt'), 'mine\n');
    const untracked = await cordon(['arm', 'x', '--allow', 'src/**'], repo);
    expect(untracked.exitCode).toBe(2);
    expect(untracked.stderr).toContain('rename it (e.g. `mv .cordon <another name>`)');
    expect(untracked.stderr).not.toContain('git mv');
    git(repo, ['add', '.cordon'], sandbox.env);
    git(repo, ['commit', '-q', '-m', 'notes'], sandbox.env);
    const tracked = await cordon(['reset'], repo);
    expect(tracked.exitCode).toBe(2);
    expect(tracked.stderr).toContain('rename it (e.g. `git mv .cordon <another name>` and commit)');
  });
});

describe('numeric flags, .cordon.json numbers and directory flags', () => {
  it('a numeric flag takes plain digits only: a blank, a sign or an exponent is refused alike, the value quoted', async () => {
    const repo = newRepo();
    for (const value of [' 5', '5 ', '+5', '1e3']) {
      const r = await cordon(['arm', 'x', '--allow', 'src/**', '--max-files', value], repo);
      expect(r.exitCode, value).toBe(2);
      expect(r.stderr, value).toContain(`--max-files: expected an integer from 0 to 9007199254740991 but received: ${JSON.stringify(value)}; see \`cordon arm --help\``);
    }
    const fraction = await cordon(['arm', 'x', '--allow', 'src/**', '--verify-timeout', ' 0.5'], repo);
    expect(fraction.exitCode).toBe(2);
    expect(fraction.stderr).toContain('but received: " 0.5"');
    expect((await cordon(['status'], repo)).exitCode).toBe(2);
  });

  it('.cordon.json: a number is echoed as the file writes it (1e30, not 1e+30)', async () => {
    const repo = newRepo({ 'src/app.py': 'x\n', '.cordon.json': '{"allow": ["src/**"], "max-files": 1e30, "max-added-lines": 5}\n' });
    const r = await cordon(['arm', 'x'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('.cordon.json: "max-files": expected an integer from 0 to 9007199254740991 but received: 1e30');
    expect(r.stderr).not.toContain('1e+30');
  });

  it('--repo quotes the value it refuses, so an empty one or a blank in it shows', async () => {
    const cwd = sandbox.dir('cwd');
    for (const [args, value] of [
      [['check', '--repo', ''], ''],
      [['arm', 'x', '--allow', 'src/**', '--repo', ' x'], ' x'],
      [['status', '--repo', 'no such'], 'no such'],
    ] as const) {
      const r = await cordon([...args], cwd);
      expect(r.exitCode, value).toBe(2);
      expect(r.stderr, value).toContain(`Error: --repo ${JSON.stringify(value)}: no such directory`);
    }
  });
});
