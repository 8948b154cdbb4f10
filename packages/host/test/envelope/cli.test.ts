import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';

/** The built `cordon` bin on real repositories (the scenarios of the BEKO2210/SkillQuarry cordon). */

let sandbox: Sandbox;
let children: Array<{ kill(signal?: NodeJS.Signals): boolean }> = [];
beforeEach(() => {
  sandbox = makeSandbox('cordon-envelope-cli-');
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  sandbox.cleanup();
});

const cordon = (args: string[], cwd?: string) => runCordon(args, { env: sandbox.env, cwd });
const newRepo = (files: Record<string, string> = { 'src/app.py': 'print("hello")\n', 'README.md': '# demo\n' }) => makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), files, sandbox.env);

describe('cordon arm / check / status / reset', () => {
  it('C1: arm prints phase armed; a 3-line file breaks --max-added-lines 2 (exit 3); reset removes .cordon', async () => {
    const repo = newRepo();
    const armed = await cordon(['arm', 'c1', '--allow', 'src/**', '--max-files', '1', '--max-added-lines', '2', '--json'], repo);
    expect(armed.exitCode).toBe(0);
    expect(JSON.parse(armed.stdout)).toMatchObject({ phase: 'armed', mode: 'manual' });
    writeFiles(repo, { 'src/new.py': 'a\nb\nc\n' });
    const checked = await cordon(['check', '--json'], repo);
    expect(checked.exitCode).toBe(3);
    const audit = JSON.parse(checked.stdout);
    expect(audit).toMatchObject({ passed: false, changed_files: ['src/new.py'], metrics: { added_lines: 3 } });
    expect(audit.violations).toEqual([{ code: 'max_added_lines_exceeded', message: 'added-line budget exceeded: 3 > 2', limit: 2, actual: 3 }]);
    const reset = await cordon(['reset'], repo);
    expect(reset.exitCode).toBe(0);
    expect(existsSync(join(repo, '.cordon'))).toBe(false);
  });

  it('human output: one verdict line, metrics against limits, one line per violation', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'human', '--allow', 'src/**', '--verify', 'true'], repo)).exitCode).toBe(0);
    writeFiles(repo, { 'src/app.py': 'print("bye")\n' });
    let r = await cordon(['check'], repo);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^accepted: 1 changed file inside the envelope \(baseline [0-9a-f]{12}\)$/);
    expect(lines.slice(1, 6).map((l) => l.trim().replace(/\s+/g, ' '))).toEqual(['files 1 / 25', 'added lines 1 / 2000', 'deleted lines 1 / 1000', 'working bytes 13 B / 2 MiB', 'binary files 0 / 2']);
    expect(lines[6]!.trim().replace(/\s+/g, ' ')).toBe('verifiers 1 of 1 passed');
    // status names the byte budget the same way; --json keeps the number.
    const status = await cordon(['status'], repo);
    expect(status.stdout.split('\n').find((l) => l.startsWith('limits: '))).toBe('limits: files 25, added lines 2000, deleted lines 1000, working bytes 2 MiB, binary files 2');
    expect(JSON.parse((await cordon(['status', '--json'], repo)).stdout).limits.max_working_bytes).toBe(2097152);
    writeFiles(repo, { 'README.md': 'changed\n', 'docs/x.md': 'x\n' });
    r = await cordon(['check'], repo);
    expect(r.exitCode).toBe(3);
    const out = r.stdout.trimEnd().split('\n');
    expect(out[0]).toMatch(/^rejected: 2 violations/);
    expect(out.filter((l) => l.startsWith('violation: '))).toEqual(['violation: path outside policy: README.md (matches no allow glob)', 'violation: path outside policy: docs/x.md (added; matches no allow glob)']);
  });

  it('human output of a failed verifier: the end of its stdout and its stderr (each under its name when both hold text), indented under the violation', async () => {
    const repo = newRepo();
    const noisy = `sh -c "i=0; while [ $i -lt 30 ]; do i=$((i+1)); echo out$i; echo err$i >&2; done; exit 4"`;
    const quiet = `sh -c "echo only-stdout; exit 1"`;
    const wide = `node -e "process.stderr.write('a'.repeat(1500) + String.fromCharCode(10) + 'b'.repeat(1500)); process.exit(2)"`;
    expect((await cordon(['arm', 'v', '--allow', 'src/**', '--verify', noisy, '--verify', 'true', '--verify', quiet, '--verify', wide], repo)).exitCode).toBe(0);
    const r = await cordon(['check'], repo);
    expect(r.exitCode).toBe(3);
    const lines = r.stdout.trimEnd().split('\n');
    const at = (command: string) => lines.indexOf(`violation: verifier failed (${command}`);
    const n = at(`exit 4): ${noisy}`);
    expect(n, r.stdout + r.stderr).toBeGreaterThan(0);
    // Both streams hold text: the last 10 lines of each, stdout first (a runner's summary may be
    // on either; npm puts its own failure lines on stderr).
    expect(lines.slice(n + 1, n + 23)).toEqual([
      '    (last lines of stdout:)',
      ...Array.from({ length: 10 }, (_, i) => `    out${i + 21}`),
      '    (last lines of stderr:)',
      ...Array.from({ length: 10 }, (_, i) => `    err${i + 21}`),
    ]);
    const q = at(`exit 1): ${quiet}`);
    expect(lines.slice(q + 1, q + 3)).toEqual(['    only-stdout', `violation: verifier failed (exit 2): ${wide}`]);
    // Over 2,000 characters: whole lines from the end only.
    expect(lines.slice(q + 3)).toEqual(['    (last lines of stderr:)', `    ${'b'.repeat(1500)}`]);
    // --json keeps the full evidence, not the tail.
    const audit = JSON.parse((await cordon(['check', '--json'], repo)).stdout);
    expect(audit.verification[0].stderr.split('\n')).toHaveLength(31);
  });

  it('repeatable flags take one value each, so they may come before the label', async () => {
    const repo = newRepo();
    let r = await cordon(['arm', '--allow', 'src/**', '--allow', 'docs/**', '--deny', 'src/gen/**', '--allow-ignored', 'build/**', '--verify', 'true', '--verify', 'echo ok', 'my label', '--json'], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    let status = JSON.parse((await cordon(['status', '--json'], repo)).stdout);
    expect(status).toMatchObject({ label: 'my label', allow: ['src/**', 'docs/**'], deny: ['src/gen/**'], allow_ignored: ['build/**'], verify: ['true', 'echo ok'] });
    // A manual envelope starts no agent attempt, so its status counts none.
    expect((await cordon(['status'], repo)).stdout.split('\n')[0]).toBe('phase: armed (mode manual: `cordon check` judges the change)');
    await cordon(['reset'], repo);
    r = await cordon(['arm', '--allow', 'src/**', 'only one allow'], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    status = JSON.parse((await cordon(['status', '--json'], repo)).stdout);
    expect(status).toMatchObject({ label: 'only one allow', allow: ['src/**'] });
    await cordon(['reset'], repo);
    // Label first, then the repeated flags, still works.
    expect((await cordon(['arm', 'label first', '--allow', 'src/**', '--allow', 'docs/**'], repo)).exitCode).toBe(0);
    status = JSON.parse((await cordon(['status', '--json'], repo)).stdout);
    expect(status).toMatchObject({ label: 'label first', allow: ['src/**', 'docs/**'] });
  });

  it('--json keeps names that are not UTF-8, or hold newlines and tabs, losslessly', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'bytes', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    writeFileSync(Buffer.concat([Buffer.from(`${repo}/src/raw-`), Buffer.from([0xff, 0xfe]), Buffer.from('.py')]), 'x\n');
    writeFileSync(join(repo, 'src', 'line\nbreak\ttab.py'), 'y\n');
    const r = await cordon(['check', '--json'], repo);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('"src/line\\nbreak\\ttab.py"');
    expect(r.stdout).toContain('"src/raw-\\udcff\\udcfe.py"');
    expect(JSON.parse(r.stdout).changed_files).toEqual(['src/line\nbreak\ttab.py', 'src/raw-\udcff\udcfe.py']);
    const human = await cordon(['check'], repo);
    expect(human.exitCode).toBe(0);
  });

  it('--repo works before and after the command, and as --repo=PATH', async () => {
    const repo = newRepo();
    const elsewhere = sandbox.dir('elsewhere');
    expect((await cordon(['--repo', repo, 'arm', 'x', '--allow', 'src/**'], elsewhere)).exitCode).toBe(0);
    expect((await cordon(['check', '--repo', join(repo, 'src')], elsewhere)).exitCode).toBe(0);
    expect((await cordon([`--repo=${repo}`, 'status', '--json'], elsewhere)).exitCode).toBe(0);
    expect((await cordon(['--repo', repo, 'check', '--json'], elsewhere)).exitCode).toBe(0);
    const r = await cordon(['check'], elsewhere);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/not a git repository/i);
  });

  it('bad input is refused with exit 2 naming the input, also under --json', async () => {
    const repo = newRepo();
    const refused: Array<[string[], RegExp]> = [
      [['arm', 'x'], /at least one --allow glob is required/],
      [['arm', 'x', '--allow', '/src/**'], /--allow "\/src\/\*\*": a glob must be relative/],
      [['arm', 'x', '--allow', 'src/../x'], /--allow "src\/\.\.\/x": a glob cannot have a "\.\." path segment/],
      [['arm', 'x', '--allow', ''], /--allow "": a glob cannot be empty/],
      [['arm', 'x', '--allow', 'src/**', '--deny', 'a\\b'], /--deny "a\\\\b": a glob cannot contain a backslash/],
      [['arm', 'x', '--allow', 'src/**', '--allow-ignored', 'dist/'], /--allow-ignored "dist\/": a glob cannot have an empty path segment/],
      [['check', '--base', 'HEAD', '--allow', ''], /--allow "": a glob cannot be empty/],
      [['arm', 'x'.repeat(16_385), '--allow', 'src/**'], /label is 16385 characters long \(after trimming\); the limit is 16384/],
      [['arm', 'x', '--allow', 'src/**', '--max-files', '-1'], /--max-files: expected an integer from 0 to 9007199254740991 but received: "-1"; see `cordon arm --help`/],
      [['arm', 'x', '--allow', 'src/**', '--max-files', '99999999999999999999'], /--max-files: expected an integer from 0 to 9007199254740991 but received: "99999999999999999999"; see `cordon arm --help`/],
      [['arm', 'x', '--allow', 'src/**', '--max-files', 'many'], /--max-files: expected an integer from 0 to 9007199254740991 but received: "many"; see `cordon arm --help`/],
      [['arm', 'x', '--allow', 'src/**', '--verify', "'"], /No closing quotation/],
      [['arm', 'x', '--allow', 'src/**', ...Array(9).fill(['--verify', 'true']).flat()], /too many --verify commands: 9 > 8/],
      [['arm', 'x', '--allow', 'src/**', '--verify-timeout', 'soon'], /--verify-timeout: expected a number of seconds greater than 0 and at most 604800 but received: "soon"; see `cordon arm --help`/],
      [['arm', 'x', '--allow', 'src/**', '--verify-timeout', '604801'], /--verify-timeout: expected a number of seconds greater than 0 and at most 604800 but received: "604801";/],
      [['arm', 'x', '--allow', 'src/**', '--verify-output-cap', '9007199254740992'], /--verify-output-cap: expected a whole number of bytes from 1 to 9007199254740991 but received: "9007199254740992";/],
      [['arm', 'x', '--allow', 'src/**', '--max-attempts', '0'], /--max-attempts: expected an integer from 1 to 9007199254740991 but received: "0";/],
      [['arm', 'x', '--allow', 'src/**', '--verify', 'FOO=1 true'], /"FOO=1" is an environment assignment.*write `env FOO=1 true`/],
      [['arm', '   ', '--allow', 'src/**'], /label must not be empty/],
      [['arm', 'x', '--allow', 'src/**', '--no-such-flag'], /nonexistent flag: --no-such-flag; see `cordon arm --help`/],
      // oclif's note that multi-value flags must follow the arguments is wrong for cordon's (one value each).
      [['arm', '--allow', 'src/**'], /missing LABEL, what the change is for \(trimmed; at most 16384 characters\); see `cordon arm --help`/],
      [['check', '--allow', 'src/**'], /--allow applies only to a committed range: add --base REF\. An armed envelope is checked against the policy it was armed with/],
      [['check', '--head', 'main', '--max-files', '3'], /--head, --max-files apply only to a committed range: add --base REF/],
      [['status'], /nothing is armed in \S+ \(run `cordon arm` first\)/],
    ];
    for (const [args, message] of refused) {
      const r = await cordon(args, repo);
      expect({ args, exit: r.exitCode }).toEqual({ args, exit: 2 });
      expect((r.stderr + r.stdout).replace(/\s+/g, ' '), args.join(' ')).toMatch(message);
      // Under --json: exit 2 too, and one short error object, whether cordon or oclif's flag
      // parser refused (oclif alone printed its whole configuration, 160 KB, and exited 1).
      const json = await cordon([...args, '--json'], repo);
      expect({ args, exit: json.exitCode }).toEqual({ args, exit: 2 });
      expect(json.stdout.length, args.join(' ')).toBeLessThan(2_000);
      const { error } = JSON.parse(json.stdout) as { error: { code: string; message: string } };
      // One document shape whoever refused: no oclif `name`, `details` even for a usage error.
      expect(Object.keys(error), args.join(' ')).toEqual(['code', 'details', 'message']);
      expect(error.code, args.join(' ')).toMatch(/^CORDON_(BAD_INPUT|BAD_STATE)$/);
      expect(error.message.replace(/\s+/g, ' '), args.join(' ')).toMatch(message);
    }
    expect((await cordon(['arm', '--allow', 'src/**'], repo)).stderr).not.toContain('Note:');
    for (const args of [['check', '--bogus'], ['status', '--bogus'], ['check', '--allow', 'keep'], ['arm']]) {
      const json = await cordon([...args, '--json'], repo);
      expect({ args, exit: json.exitCode }).toEqual({ args, exit: 2 });
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT' });
    }
    const json = await cordon(['status', '--json'], repo);
    expect(json.exitCode).toBe(2);
    expect(existsSync(join(repo, '.cordon'))).toBe(false);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_STATE' });
    expect((await cordon(['reset'], repo)).exitCode).toBe(0);
    expect(existsSync(join(repo, '.cordon'))).toBe(false);
  });

  it('outside a git work tree: exit 2 naming the directory and --repo; with --repo, naming the path as typed', async () => {
    const outside = realpathSync(sandbox.dir('notrepo'));
    const runs: Array<[string[], string]> = [
      [['arm', 'x', '--allow', 'src/**'], outside],
      [['check'], outside],
      [['check', '--base', 'main'], outside],
      [['status'], outside],
      [['reset'], outside],
      [['resume'], outside],
    ];
    for (const [args, cwd] of runs) {
      const r = await cordon(args, cwd);
      expect({ args, exit: r.exitCode }).toEqual({ args, exit: 2 });
      expect(r.stderr.replace(/\s+/g, ' '), args.join(' ')).toContain(`${outside} is not inside a git work tree`);
      expect(r.stderr.replace(/\s+/g, ' '), args.join(' ')).toContain('; run cordon inside one, or name one with --repo DIR');
    }
    // Named with --repo (relative, with a character a terminal must not see raw): that path as
    // typed, JSON-quoted and escaped, and no advice to use the flag the user just used.
    sandbox.dir('odd\u001b[31mdir');
    const typed = '../odd\u001b[31mdir';
    const from = sandbox.dir('elsewhere');
    const named = [['arm', 'x', '--allow', 'src/**'], ['check'], ['check', '--json'], ['check', '--base', 'main'], ['status'], ['status', '--json'], ['reset'], ['resume']];
    for (const args of named) {
      for (const repoArgs of [['--repo', typed], [`--repo=${typed}`]]) {
        const r = await cordon([...args, ...repoArgs], from);
        const message = args.includes('--json') ? JSON.parse(r.stdout).error.message : r.stderr.split('\n')[0]!.replace(/^ {4}Error: /, '');
        expect({ args, exit: r.exitCode }).toEqual({ args, exit: 2 });
        expect(message, args.join(' ')).toMatch(/^--repo "\.\.\/odd\\u001b\[31mdir" is not inside a git work tree \(git: fatal: not a git repository.*\)$/);
        expect(r.stderr + r.stdout).not.toContain('\u001b');
      }
    }
    const json = await cordon(['status', '--json'], outside);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_REPO_ERROR', message: expect.stringMatching(/^\S+notrepo is not inside a git work tree \(git: fatal: not a git repository.*\); run cordon inside one, or name one with --repo DIR$/) });
  });

  it('arm warns of a verifier that cannot start here now, and arms all the same', async () => {
    const repo = newRepo();
    writeFiles(repo, { 'scripts/plain.sh': 'echo hi\n' });
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-q', '-m', 'a script without its x bit']);
    const armed = await cordon(['arm', 'v', '--allow', 'src/**', '--verify', 'cordon-no-such-verifier --x', '--verify', './scripts/missing.sh', '--verify', 'sh scripts/plain.sh', '--verify', './scripts/plain.sh', '--verify', './scripts', '--verify', 'true'], repo);
    expect(armed.exitCode, armed.stderr).toBe(0);
    // In the words check then uses (process/start-failure.ts); a directory is not "missing".
    expect(armed.stderr.split('\n').filter(Boolean)).toEqual([
      'warning: verifier `cordon-no-such-verifier --x` cannot start here now (`cordon-no-such-verifier`: not found on PATH); `cordon check` fails it unless that changes',
      'warning: verifier `./scripts/missing.sh` cannot start here now (`./scripts/missing.sh`: no such file); `cordon check` fails it unless that changes',
      'warning: verifier `./scripts/plain.sh` cannot start here now (`./scripts/plain.sh`: not executable); `cordon check` fails it unless that changes',
      'warning: verifier `./scripts` cannot start here now (`./scripts`: is a directory); `cordon check` fails it unless that changes',
    ]);
    // What check then says of each: why, once.
    const checked = await cordon(['check'], repo);
    expect(checked.exitCode).toBe(3);
    expect(checked.stdout).toContain("cannot start 'cordon-no-such-verifier': not found on PATH");
    expect(checked.stdout).toContain("cannot start './scripts/missing.sh': no such file");
    expect(checked.stdout).toContain("cannot start './scripts/plain.sh': not executable");
    expect(checked.stdout).toContain("cannot start './scripts': is a directory");
  });

  it('arm warns of a verifier holding a shell operator (it reaches the program as an argument), and arms all the same', async () => {
    const repo = newRepo({ 'src/a.js': 'a\n' });
    const armed = await cordon(['arm', 'v', '--allow', 'src/**', '--verify', 'true && false', '--verify', "sh -c 'true && false'", '--verify', 'echo it | grep -q x', '--verify', "grep -q '<title>' src/a.js", '--verify', 'echo done >out.txt'], repo);
    expect(armed.exitCode, armed.stderr).toBe(0);
    expect(armed.stderr.split('\n').filter(Boolean)).toEqual([
      "warning: verifier `true && false` passes `&&` to `true` as an argument: verifiers run without a shell, so it means nothing there; to have a shell run it, write `sh -c 'true && false'`",
      "warning: verifier `echo it | grep -q x` passes `|` to `echo` as an argument: verifiers run without a shell, so it means nothing there; to have a shell run it, write `sh -c 'echo it | grep -q x'`",
      "warning: verifier `echo done >out.txt` passes `>out.txt` to `echo` as an argument: verifiers run without a shell, so it means nothing there; to have a shell run it, write `sh -c 'echo done >out.txt'`",
    ]);
    // As in the reference: `true && false` runs `true` with two arguments, and check runs it so.
    writeFiles(repo, { 'src/a.js': 'b\n' });
    const checked = await cordon(['check', '--json'], repo);
    const verifiers = JSON.parse(checked.stdout).verification as Array<{ command: string; passed: boolean }>;
    expect(verifiers.map((v) => [v.command, v.passed])).toEqual([
      ['true && false', true],
      ["sh -c 'true && false'", false],
      ['echo it | grep -q x', true],
      ["grep -q '<title>' src/a.js", false],
      ['echo done >out.txt', true],
    ]);
  });

  it('arm says a $VAR, ${VAR} or ~ in a verifier is not expanded (verifiers run without a shell), beside "cannot start", worded by where it stands; double-quoted too', async () => {
    const repo = newRepo({ 'src/a.js': 'a\n' });
    const armed = await cordon(['arm', 'v', '--allow', 'src/**', '--verify', '$HOME/x', '--verify', 'test -d ~/src', '--verify', 'bash -c "test -d $HOME"', '--verify', 'node -p process.argv.slice(1) "$HOME" x', '--verify', "echo '$HOME'"], repo);
    expect(armed.exitCode, armed.stderr).toBe(0);
    expect(armed.stderr.split('\n').filter(Boolean)).toEqual([
      'warning: verifier `$HOME/x` cannot start here now (`$HOME/x`: no such file); `cordon check` fails it unless that changes',
      "warning: verifier `$HOME/x` holds `$HOME`, which only a shell expands: verifiers run without a shell, so the program is looked up under the name `$HOME/x` as written; write the value out, or to have a shell run it, write `sh -c '$HOME/x'`",
      "warning: verifier `test -d ~/src` holds `~`, which only a shell expands: verifiers run without a shell, so `test` gets the text `~` literally, not its value; write the value out, or to have a shell run it, write `sh -c 'test -d ~/src'`",
      'warning: verifier `node -p process.argv.slice(1) "$HOME" x` holds `$HOME`, which only a shell expands, even inside double quotes: verifiers run without a shell, so `node` gets the text `$HOME` literally, not its value; write the value out, or to have a shell run it, write `sh -c \'node -p process.argv.slice(1) "$HOME" x\'`',
    ]);
  });

  it('arm warns of a glob without * or ? that names a directory (flags and .cordon.json), and arms all the same', async () => {
    const repo = newRepo({ 'src/a.js': 'a\n', 'docs/guide/x.md': 'x\n', 'README.md': 'r\n', '.cordon.json': JSON.stringify({ deny: ['docs/guide'] }) });
    const armed = await cordon(['arm', 'd', '--allow', 'src', '--allow', 'README.md', '--allow', 'lib', '--allow-ignored', 'src', '--allow', 'docs/*'], repo);
    expect(armed.exitCode, armed.stderr).toBe(0);
    // A file (README.md), a path that does not exist (lib) and a glob with * say nothing.
    expect(armed.stderr.split('\n').filter(Boolean)).toEqual([
      'warning: allow glob src names a directory, but a glob without * or ? matches that one path only, not the files under it; for everything under it use src/** (--allow or "allow" in .cordon.json)',
      'warning: deny glob docs/guide names a directory, but a glob without * or ? matches that one path only, not the files under it; for everything under it use docs/guide/** (--deny or "deny" in .cordon.json)',
      'warning: allow-ignored glob src names a directory, but a glob without * or ? matches that one path only, not the files under it; for everything under it use src/** (--allow-ignored or "allow-ignored" in .cordon.json)',
    ]);
    // What the warning foretells: the policy is kept as given, and check judges by it.
    expect(JSON.parse((await cordon(['status', '--json'], repo)).stdout)).toMatchObject({ allow: ['src', 'README.md', 'lib', 'docs/*'], deny: ['docs/guide'] });
    writeFiles(repo, { 'src/a.js': 'b\n' });
    const checked = await cordon(['check'], repo);
    expect(checked.exitCode).toBe(3);
    expect(checked.stdout).toContain('path outside policy: src/a.js (matches no allow glob)');
    // --json keeps stdout for the document; the warning is on stderr all the same.
    await cordon(['reset'], repo);
    git(repo, ['checkout', '-q', '--', 'src/a.js'], sandbox.env);
    const json = await cordon(['arm', 'd', '--allow', 'src/**', '--json'], repo);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ phase: 'armed' });
    expect(json.stderr).toContain('warning: deny glob docs/guide names a directory');
  });

  // `--allow 'SRC/**'` in a tree with src/ armed silently, and check then refused every change
  // under src/; a deny glob spelt so protected nothing. Globs match git's paths letter for letter.
  it('arm warns of a glob naming a path the work tree holds in another letter case, and arms all the same', async () => {
    const repo = newRepo({ 'src/Lib/a.js': 'a\n', 'README.md': 'r\n', 'secrets/k': 'k\n', '.cordon.json': JSON.stringify({ deny: ['Secrets/**'] }) });
    const armed = await cordon(['arm', 'c', '--allow', 'SRC/**', '--allow', 'src/lib/*.js', '--allow', 'README.MD', '--allow', 'src/Lib/**', '--allow', 'new/**', '--allow', '**/Readme.md'], repo);
    expect(armed.exitCode, armed.stderr).toBe(0);
    // Spelt as the tree has it, a path that is not there in any case, and a glob that starts with ** say nothing.
    expect(armed.stderr.split('\n').filter(Boolean)).toEqual([
      'warning: allow glob SRC/** names SRC, which the work tree does not have, but it has src, and globs match letter case exactly; for it use src/** (--allow or "allow" in .cordon.json)',
      'warning: allow glob src/lib/*.js names src/lib, which the work tree does not have, but it has src/Lib, and globs match letter case exactly; for it use src/Lib/*.js (--allow or "allow" in .cordon.json)',
      'warning: allow glob README.MD names README.MD, which the work tree does not have, but it has README.md, and globs match letter case exactly; for it use README.md (--allow or "allow" in .cordon.json)',
      'warning: deny glob Secrets/** names Secrets, which the work tree does not have, but it has secrets, and globs match letter case exactly; for it use secrets/** (--deny or "deny" in .cordon.json)',
    ]);
    // What the warning foretells: the policy is kept as given, and check judges by it.
    expect(JSON.parse((await cordon(['status', '--json'], repo)).stdout)).toMatchObject({ allow: ['SRC/**', 'src/lib/*.js', 'README.MD', 'src/Lib/**', 'new/**', '**/Readme.md'], deny: ['Secrets/**'] });
    writeFiles(repo, { 'README.md': 'changed\n' });
    const checked = await cordon(['check'], repo);
    expect(checked.exitCode).toBe(3);
    expect(checked.stdout).toContain('path outside policy: README.md (matches no allow glob)');
  });

  it('arm in a subdirectory warns of a glob written relative to it (`*.mjs` in src/ for src/*.mjs), and arms all the same', async () => {
    // The walkthrough's slip: armed from src/ with --allow '*.mjs', then check refused src/a.mjs.
    const repo = newRepo({ 'src/a.mjs': 'a\n', 'src/lib/b.mjs': 'b\n', 'README.md': 'r\n' });
    const src = join(repo, 'src');
    const armed = await cordon(['arm', 's', '--allow', '*.mjs', '--allow', 'lib/**', '--deny', 'README.md', '--allow', '**/*.md', '--allow', 'src/**'], src);
    expect(armed.exitCode, armed.stderr).toBe(0);
    // README.md exists at the root, **/ matches from anywhere, src/** is already from the root: nothing said of them.
    expect(armed.stderr.split('\n').filter(Boolean)).toEqual([
      'warning: allow glob *.mjs matches nothing from the repository root, and globs are matched from there, not from src/ where you ran this; for the files here use src/*.mjs (--allow or "allow" in .cordon.json)',
      'warning: allow glob lib/** matches nothing from the repository root, and globs are matched from there, not from src/ where you ran this; for the files here use src/lib/** (--allow or "allow" in .cordon.json)',
    ]);
    expect(JSON.parse((await cordon(['status', '--json'], src)).stdout)).toMatchObject({ allow: ['*.mjs', 'lib/**', '**/*.md', 'src/**'] });
    await cordon(['reset'], src);
    // From the root, or with --repo (the globs then plainly read from the root): no such warning.
    for (const [args, cwd] of [[['arm', 's', '--allow', '*.mjs'], repo], [['arm', 's', '--allow', '*.mjs', '--repo', repo], src]] as const) {
      const r = await cordon([...args], cwd);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('matches nothing from the repository root');
      await cordon(['reset'], repo);
    }
  });

  it('arm and check --base warn of a glob holding braces or brackets (literal in cordon\'s globs), with the globs meant, and keep the policy as given', async () => {
    const repo = newRepo({ 'src/a.js': 'a\n', 'README.md': 'r\n', '.cordon.json': JSON.stringify({ deny: ['src/v[12]/**'] }) });
    const armed = await cordon(['arm', 'x', '--allow', 'src/**/*.{js,ts}', '--allow', 'docs/[a-z]*', '--allow', 'README.md'], repo);
    expect(armed.exitCode, armed.stderr).toBe(0);
    expect(armed.stderr.split('\n').filter(Boolean)).toEqual([
      'warning: allow glob src/**/*.{js,ts} holds { }: cordon\'s globs have no brace expansion or character classes, so the braces are literal and it matches only a path with those very characters; write one glob per alternative instead: src/**/*.js, src/**/*.ts (--allow once for each, or each in "allow" in .cordon.json)',
      'warning: allow glob docs/[a-z]* holds [ ]: cordon\'s globs have no brace expansion or character classes, so the brackets are literal and it matches only a path with those very characters; write one glob per alternative instead, or ? for any one character (--allow once for each, or each in "allow" in .cordon.json)',
      'warning: deny glob src/v[12]/** holds [ ]: cordon\'s globs have no brace expansion or character classes, so the brackets are literal and it matches only a path with those very characters; write one glob per alternative instead: src/v1/**, src/v2/** (--deny once for each, or each in "deny" in .cordon.json)',
    ]);
    // What the warning foretells.
    writeFiles(repo, { 'src/a.js': 'b\n' });
    const checked = await cordon(['check'], repo);
    expect(checked.exitCode).toBe(3);
    expect(checked.stdout).toContain('path outside policy: src/a.js (matches no allow glob)');
    // CI: the base commit's .cordon.json and the flags, the same warnings.
    await cordon(['reset'], repo);
    git(repo, ['checkout', '-q', '--', 'src/a.js'], sandbox.env);
    const range = await cordon(['check', '--base', 'HEAD', '--allow', '*.{md,txt}'], repo);
    expect(range.exitCode, range.stderr).toBe(0);
    expect(range.stderr).toContain('warning: allow glob *.{md,txt} holds { }');
    expect(range.stderr).toContain('write one glob per alternative instead: *.md, *.txt (--allow once for each');
    expect(range.stderr).toContain('warning: deny glob src/v[12]/** holds [ ]');
  });

  it('oclif\'s parse errors are one line in cordon\'s layout, with the Code line and exit 2', async () => {
    const repo = newRepo();
    const cases: Array<[string[], string]> = [
      [['arm', 'x', '--max-files', 'abc'], '--max-files: expected an integer from 0 to 9007199254740991 but received: "abc"; see `cordon arm --help`'],
      [['check', '--format', 'nope'], '--format: expected one of text, github, sarif, junit but received: "nope"; see `cordon check --help`'],
      [['arm', 'x', '--max-files'], '--max-files: expects a value; see `cordon arm --help`'],
      [['arm', 'x', 'y', '--allow', 'src/**'], 'unexpected argument: y (words meant as one LABEL need quotes: cordon arm "x y"); see `cordon arm --help`'],
      [['control', 'guard'], 'missing required flag --agent; see `cordon control guard --help`'],
    ];
    for (const [args, message] of cases) {
      const r = await cordon(args, repo);
      expect([args.join(' '), r.exitCode, r.stderr]).toEqual([args.join(' '), 2, `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n`]);
      const json = await cordon([...args, '--json'], repo);
      expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'CORDON_BAD_INPUT', details: {}, message } });
    }
  });

  it('an error on a pipe keeps a long path on one line (oclif hard-wrapped at 80 columns)', async () => {
    const deep = realpathSync(sandbox.dir(`${'a-long-directory-name-'.repeat(4)}x/${'another-segment-'.repeat(4)}y`));
    const repo = makeRepo(deep, { 'a.txt': 'a\n' }, sandbox.env);
    expect(repo.length).toBeGreaterThan(120);
    for (const args of [['status'], ['check'], ['check', '--no-such-flag']]) {
      const r = await cordon(args, repo);
      expect({ args, exit: r.exitCode }).toEqual({ args, exit: 2 });
      const lines = r.stderr.split('\n');
      expect(lines[0], args.join(' ')).toMatch(/^ {4}Error: /);
      expect(lines.at(-2), args.join(' ')).toMatch(/^ {4}Code: CORDON_[A-Z_]+$/);
      if (args.length === 1) expect(lines[0], args.join(' ')).toContain(`nothing is armed in ${repo} (run \`cordon arm\` first)`);
    }
  });

  it('status works while another process holds the lock; check and reset are refused', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'x', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    const lockFile = join(repo, '.git', 'cordon.lock');
    const holder = spawn(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(lockFile)}, JSON.stringify({pid: process.pid, host: ${JSON.stringify(hostname())}, start: null, nonce: 'holder', command: 'run', since: 'now'})); console.log('held'); setTimeout(() => {}, 60000)`]);
    children.push(holder);
    await new Promise((r) => holder.stdout.once('data', r));
    const status = await cordon(['status', '--json'], repo);
    expect(status.exitCode).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ phase: 'armed', attempt: 0, max_attempts: 3 });
    for (const cmd of ['check', 'reset']) {
      const r = await cordon([cmd], repo);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/another cordon process owns this repository/);
      // What to do, with the holder's pid.
      expect(r.stderr).toContain(`wait for it to finish, or stop it (kill ${holder.pid}); a lock whose process is gone is taken over on the next command`);
    }
  });

  it('editing info/exclude after arming makes check and status refuse (exit 2)', async () => {
    const repo = newRepo();
    expect((await cordon(['arm', 'x', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    const excludeFile = join(repo, '.git', 'info', 'exclude');
    const armed = readFileSync(excludeFile);
    writeFileSync(excludeFile, 'hide-me/\n', { flag: 'a' });
    for (const cmd of ['check', 'status']) {
      const r = await cordon([cmd, '--json'], repo);
      expect(r.exitCode).toBe(2);
      expect(JSON.parse(r.stdout).error.message).toBe(
        `${realpathSync(repo)}/.git/info/exclude changed after cordon was armed; restore the content it had then (kept in .cordon/snapshot.json as git.info_exclude), or run \`cordon reset\` and arm again`,
      );
    }
    // Both recoveries the message names work.
    const snapshot = JSON.parse(readFileSync(join(repo, '.cordon', 'snapshot.json'), 'utf8'));
    expect(Buffer.from(snapshot.git.info_exclude)).toEqual(armed);
    writeFileSync(excludeFile, snapshot.git.info_exclude);
    expect((await cordon(['status'], repo)).exitCode).toBe(0);
    writeFileSync(excludeFile, 'hide-me/\n', { flag: 'a' });
    expect((await cordon(['reset'], repo)).exitCode).toBe(0);
    expect((await cordon(['arm', 'again', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    expect((await cordon(['check'], repo)).exitCode).toBe(0);
  });
});

describe('.cordon.json and CI mode (check --base)', () => {
  it('a path denied by .cordon.json is reported with its deny glob, not as a --deny flag', async () => {
    const repo = newRepo({ 'src/app.py': 'a\n', '.cordon.json': JSON.stringify({ allow: ['src/**'], deny: ['src/secret*'] }) });
    expect((await cordon(['arm', 'from file'], repo)).exitCode).toBe(0);
    writeFileSync(join(repo, 'src/secret.txt'), 'x\n');
    const r = await cordon(['check'], repo);
    expect(r.exitCode).toBe(3);
    expect(r.stdout + r.stderr).toContain('path outside policy: src/secret.txt (added; matches the deny glob src/secret*)');
    expect(r.stdout + r.stderr).not.toContain('--deny');
  });

  it('arm reads .cordon.json; flags override it; a bad file is named', async () => {
    const repo = newRepo({ 'src/app.py': 'a\n', 'README.md': 'r\n', '.cordon.json': JSON.stringify({ allow: ['src/**'], 'max-added-lines': 1, verify: ['true'] }) });
    expect((await cordon(['arm', 'from file'], repo)).exitCode).toBe(0);
    let status = JSON.parse((await cordon(['status', '--json'], repo)).stdout);
    expect(status).toMatchObject({ allow: ['src/**'], limits: { max_added_lines: 1, max_files: 25 }, verify: ['true'] });
    await cordon(['reset'], repo);
    expect((await cordon(['arm', 'flags win', '--allow', 'docs/**', '--max-added-lines', '7'], repo)).exitCode).toBe(0);
    status = JSON.parse((await cordon(['status', '--json'], repo)).stdout);
    expect(status).toMatchObject({ allow: ['docs/**'], limits: { max_added_lines: 7 }, verify: ['true'] });
    await cordon(['reset'], repo);
    writeFileSync(join(repo, '.cordon.json'), JSON.stringify({ allow: 'src/**' }));
    git(repo, ['commit', '-qam', 'bad policy'], sandbox.env);
    let r = await cordon(['arm', 'x'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/\.cordon\.json: "allow" must be a list of strings/);
    writeFileSync(join(repo, '.cordon.json'), JSON.stringify({ allow: ['src/**'], maxFiles: 3 }));
    git(repo, ['commit', '-qam', 'unknown key'], sandbox.env);
    r = await cordon(['arm', 'x'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown key "maxFiles" \(did you mean "max-files"\?\)/);
    // Found by a fresh user: a mistyped key got no guess, where a mistyped flag gets one.
    writeFileSync(join(repo, '.cordon.json'), JSON.stringify({ allow: ['src/**'], denny: ['secrets/**'] }));
    git(repo, ['commit', '-qam', 'mistyped key'], sandbox.env);
    r = await cordon(['arm', 'x'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('.cordon.json: unknown key "denny" (did you mean "deny"?) (known: allow, deny,');
    writeFileSync(join(repo, '.cordon.json'), JSON.stringify({ allow: ['/src/**'] }));
    git(repo, ['commit', '-qam', 'absolute glob'], sandbox.env);
    r = await cordon(['arm', 'x', '--json'], repo);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toBe('.cordon.json: "allow" entry "/src/**": a glob must be relative to the repository root (no leading "/" or "./")');
    writeFileSync(join(repo, '.cordon.json'), '{\n  "allow": ["src/**"]\n  "deny": []\n}\n');
    r = await cordon(['arm', 'x'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`.cordon.json is not valid JSON: comma expected at line 3, column 3 (${join(realpathSync(repo), '.cordon.json')})`);
    // A key given twice kept the last list unseen: refused, naming the key and both lines.
    writeFileSync(join(repo, '.cordon.json'), '{\n  "allow": ["src/**"],\n  "deny": ["src/secrets/**"],\n  "allow": ["docs/**"]\n}\n');
    r = await cordon(['arm', 'x'], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`.cordon.json: "allow" is given twice, at line 2, column 3 and again at line 4, column 3; JSON keeps only the last: give each key once (${join(realpathSync(repo), '.cordon.json')})`);
    expect(existsSync(join(repo, '.cordon'))).toBe(false);
  });

  it('check --base audits a committed range with the base commit policy, without arming', async () => {
    const repo = newRepo({ 'src/app.py': 'a\n', 'README.md': 'r\n', '.cordon.json': JSON.stringify({ allow: ['src/**'], 'max-added-lines': 3 }) });
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'src/app.py': 'a\nb\n', 'src/new.py': 'n\n' });
    git(repo, ['add', '-A'], sandbox.env);
    git(repo, ['commit', '-qm', 'in policy'], sandbox.env);
    let r = await cordon(['check', '--base', base, '--json'], repo);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ passed: true, mode: 'range', baseline: base, changed_files: ['src/app.py', 'src/new.py'], metrics: { files: 2, added_lines: 2, working_bytes: 6 } });
    expect(existsSync(join(repo, '.cordon'))).toBe(false);
    const good = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    // The change also loosens .cordon.json; the base commit's policy still applies.
    writeFiles(repo, { 'README.md': 'changed\n', '.cordon.json': JSON.stringify({ allow: ['**'] }) });
    git(repo, ['commit', '-qam', 'out of policy'], sandbox.env);
    r = await cordon(['check', '--base', base], repo);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toContain('violation: path outside policy: README.md');
    expect((await cordon(['check', '--base', base, '--head', good], repo)).exitCode).toBe(0);
    expect((await cordon(['check', '--base', base, '--allow', '**', '--max-added-lines', '10'], repo)).exitCode).toBe(0);
    const missing = await cordon(['check', '--base', 'no-such-ref'], repo);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/cannot resolve --base no-such-ref: no commit, branch or tag of that name in the repository at \S+ \(git: fatal: Needed a single revision\)/);
    // A name of another object says which kind it is.
    const blob = git(repo, ['rev-parse', 'HEAD:README.md'], sandbox.env).trim();
    const notCommit = await cordon(['check', '--base', blob], repo);
    expect(notCommit.exitCode).toBe(2);
    expect(notCommit.stderr).toContain(`cannot resolve --base ${blob}: it names a blob, not a commit in the repository at`);
  });

  it('check --base from a commit without a policy names that commit and says how to give one', async () => {
    const repo = newRepo({ 'src/a.js': 'a\n' });
    const first = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'README.md': 'r\n', '.cordon.json': JSON.stringify({ 'max-files': 5 }) });
    git(repo, ['add', '-A'], sandbox.env);
    git(repo, ['commit', '-qm', 'a policy file without allow'], sandbox.env);
    const second = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    // HEAD and the work tree hold an allow glob: neither is read for the range.
    writeFiles(repo, { 'src/a.js': 'b\n', '.cordon.json': JSON.stringify({ allow: ['**'] }) });
    git(repo, ['commit', '-qam', 'the policy gains allow'], sandbox.env);
    const none = await cordon(['check', '--base', 'HEAD~2'], repo);
    expect(none.exitCode).toBe(2);
    const [line, code] = none.stderr.split('\n');
    expect(line).toBe(
      `    Error: the base commit HEAD~2 (${first.slice(0, 12)}) has no .cordon.json, and \`check --base\` takes its policy from the base commit, never from the work tree or a later commit (a change cannot loosen its own audit). Give the policy as flags: \`cordon check --base HEAD~2 --allow 'src/**'\` (with --deny, --max-files… as needed), or use a base that holds .cordon.json with \`allow\``,
    );
    expect(code).toBe('    Code: CORDON_BAD_INPUT');
    const noAllow = await cordon(['check', '--base', 'HEAD~1', '--json'], repo);
    expect(noAllow.exitCode).toBe(2);
    expect(JSON.parse(noAllow.stdout).error).toMatchObject({
      code: 'CORDON_BAD_INPUT',
      details: { base: 'HEAD~1', commit: second, policy_file: true },
      message: expect.stringMatching(new RegExp(`^\\.cordon\\.json in the base commit HEAD~1 \\(${second.slice(0, 12)}\\) has no \`allow\`, and`)),
    });
    // Given as flags, the range is audited (the base's max-files still applies).
    const given = await cordon(['check', '--base', 'HEAD~1', '--allow', '**', '--json'], repo);
    expect(given.exitCode, given.stderr).toBe(0);
    expect(JSON.parse(given.stdout)).toMatchObject({ passed: true, limits: { max_files: 5 } });
  });

  it('check --base with verifiers refuses (exit 2) unless the work tree is exactly the audited head', async () => {
    const repo = newRepo({ 'src/app.py': 'a\n', 'README.md': 'r\n', '.gitignore': 'build/\n' });
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'src/app.py': 'good\n' });
    git(repo, ['commit', '-qam', 'good'], sandbox.env);
    const good = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    // The verifier passes only on the committed content of `good`.
    const verify = ['--verify', 'grep -qx good src/app.py'];
    git(repo, ['checkout', '-q', base], sandbox.env);
    let r = await cordon(['check', '--base', base, '--head', good, '--allow', 'src/**', ...verify], repo);
    expect(r.exitCode).toBe(2);
    const said = r.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(`not the audited head ${good}: HEAD is ${base.slice(0, 12)}, not ${good.slice(0, 12)}`);
    expect(said).toContain(`check out ${good} with a clean work tree`);
    expect(said).toContain('or drop --verify');
    git(repo, ['checkout', '-q', good], sandbox.env);
    // Uncommitted edit to a tracked file: the metrics would ignore it, the verifier would see it.
    writeFiles(repo, { 'src/app.py': 'edited\n' });
    r = await cordon(['check', '--base', base, '--allow', 'src/**', ...verify, '--json'], repo);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toMatch(/not the audited head HEAD: the work tree has changes that are not committed in it: src\/app\.py;/);
    git(repo, ['checkout', '-q', '--', 'src/app.py'], sandbox.env);
    // An untracked file (not ignored) is refused too: a verifier would see it.
    writeFiles(repo, { 'src/extra.py': 'x\n' });
    r = await cordon(['check', '--base', base, '--head', good, '--allow', 'src/**', ...verify], repo);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.replace(/\s+/g, ' ')).toContain('not committed in it: src/extra.py;');
    // Accepted: the work tree is `good`; ignored files are fine.
    git(repo, ['clean', '-qfd', '--', 'src'], sandbox.env);
    writeFiles(repo, { 'build/out.txt': 'artifact\n' });
    r = await cordon(['check', '--base', base, '--head', good, '--allow', 'src/**', ...verify, '--json'], repo);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ passed: true, mode: 'range', verification: [{ command: 'grep -qx good src/app.py', passed: true }] });
    // Without verifiers the work tree does not matter (committed content only).
    git(repo, ['checkout', '-q', base], sandbox.env);
    expect((await cordon(['check', '--base', base, '--head', good, '--allow', 'src/**'], repo)).exitCode).toBe(0);
  });

  it('check --base looks at committed content only, never the work tree', async () => {
    const repo = newRepo({ 'src/app.py': 'a\n', 'README.md': 'r\n' });
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'README.md': 'dirty, not committed\n' });
    const r = await cordon(['check', '--base', base, '--allow', 'src/**', '--json'], repo);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ passed: true, changed_files: [] });
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('dirty, not committed\n');
  });
});
