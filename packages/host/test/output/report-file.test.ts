import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, runCordon, runProcess, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';
import { writeSyntheticBatch } from '../telemetry/analyze/synthetic.js';

// Issue 29 "Files": one way to write a report file (`--out`): `-` is stdout, new files follow the
// umask, existing files keep their mode, a bad directory is exit 2 naming the user's path, and
// a report cordon wrote into the work tree is not audited as the agent's change.

const flat = (s: string) => s.replace(/\s+/g, ' ');

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-report-file-');
});
afterEach(() => sandbox.cleanup());

/** cordon under a umask, through a shell that sets it and execs node. */
function cordonUnder(umask: string, args: readonly string[], cwd?: string): Promise<RunResult> {
  return runProcess(['sh', '-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, CORDON_BIN, ...args], { env: sandbox.env, cwd });
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('analyze --out', () => {
  beforeEach(() => writeSyntheticBatch(sandbox.dataDir));

  it('a new report follows the umask, an existing one keeps its mode', async () => {
    const out = sandbox.dir('out');
    for (const [umask, expected] of [['077', 0o600], ['022', 0o644], ['027', 0o640]] as const) {
      const file = join(out, `report-${umask}.md`);
      const r = await cordonUnder(umask, ['analyze', '--all', '--format', 'md', '--out', file]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mode(file)).toBe(expected);
    }
    for (const kept of [0o600, 0o640, 0o604]) {
      const file = join(out, `existing-${kept.toString(8)}.json`);
      writeFileSync(file, '{}');
      chmodSync(file, kept);
      const r = await cordonUnder('022', ['analyze', '--all', '--format', 'json', '--out', file]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(mode(file)).toBe(kept);
      expect(JSON.parse(readFileSync(file, 'utf8')).schema_version).toBe(1);
    }
  }, 120_000);

  it('--out - is standard output, and no file named - appears', async () => {
    const cwd = sandbox.dir('cwd');
    for (const format of ['md', 'json', 'text']) {
      const r = await runCordon(['analyze', '--all', '--format', format, '--out', '-'], { env: sandbox.env, cwd });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('cordon analyze'.slice(0, format === 'json' ? 0 : 14));
      expect(r.stdout.length).toBeGreaterThan(500);
    }
    // Under --json, stdout holds one JSON document.
    const json = await runCordon(['analyze', '--all', '--json', '--out', '-'], { env: sandbox.env, cwd });
    expect(JSON.parse(json.stdout).schema_version).toBe(1);
    expect(existsSync(join(cwd, '-'))).toBe(false);
  }, 120_000);

  it('a missing directory, a file in the way or a directory at the path: exit 2 naming the path given', async () => {
    const out = sandbox.dir('out');
    writeFileSync(join(out, 'plain-file'), 'x');
    mkdirSync(join(out, 'a-directory'));
    const cases: Array<[string, RegExp]> = [
      [join(out, 'no-such-dir', 'report.md'), /the directory .*no-such-dir does not exist/],
      [join(out, 'plain-file', 'report.md'), /plain-file is not a directory/],
      [join(out, 'a-directory'), /it is a directory/],
    ];
    for (const [file, why] of cases) {
      const r = await runCordon(['analyze', '--all', '--format', 'md', '--out', file], { env: sandbox.env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(flat(r.stderr)).toContain(`--out ${file}: cannot write the report`);
      expect(flat(r.stderr)).toMatch(why);
      expect(r.stderr).not.toMatch(/\.tmp/);
    }
    expect(readdirSync(out).sort()).toEqual(['a-directory', 'plain-file']);
  }, 120_000);
});

describe('check --out', () => {
  function repo(): string {
    const dir = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n', '.cordon.json': JSON.stringify({ allow: ['src/**'], verify: ['true'] }) }, sandbox.env);
    return dir;
  }

  it('--out - prints the report and writes no file named -', async () => {
    const dir = repo();
    const base = git(dir, ['rev-parse', 'HEAD'], sandbox.env).trim();
    for (const format of ['sarif', 'junit', 'github']) {
      const r = await runCordon(['check', '--base', base, '--format', format, '--out', '-'], { env: sandbox.env, cwd: dir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(format === 'sarif' ? /"version": "2\.1\.0"/ : format === 'junit' ? /<testsuites/ : /::notice/);
    }
    expect(existsSync(join(dir, '-'))).toBe(false);
  }, 120_000);

  it('an --out in a missing directory, under a file, or at a directory: exit 2 naming the path given, never the temp file', async () => {
    const dir = repo();
    const base = git(dir, ['rev-parse', 'HEAD'], sandbox.env).trim();
    const out = sandbox.dir('check-out');
    writeFileSync(join(out, 'file'), 'x');
    for (const [file, why] of [
      [join(out, 'missing', 'cordon.sarif'), 'does not exist'],
      [join(out, 'file', 'cordon.sarif'), 'is not a directory'],
      [out, 'it is a directory'],
      // A directory that exists but takes no new files, and a device that is always full.
      ['/proc/cordon.sarif', 'the directory /proc takes no new files (ENOENT)'],
      ...(existsSync('/dev/full') ? [['/dev/full', 'no space left on the device (ENOSPC)'] as const] : []),
    ] as const) {
      const r = await runCordon(['check', '--base', base, '--format', 'sarif', '--out', file], { env: sandbox.env, cwd: dir });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(flat(r.stderr)).toContain(`--out ${file}: cannot write the report`);
      expect(flat(r.stderr)).toContain(why);
      expect(r.stderr).not.toMatch(/\.tmp/);
    }
  }, 120_000);

  it('an empty --out is refused by name before anything runs (exit 2), for check and analyze', async () => {
    const dir = repo();
    const base = git(dir, ['rev-parse', 'HEAD'], sandbox.env).trim();
    // A script's `--out "$REPORT"` with the variable unset. Before, the verifiers ran and then the
    // empty path, resolved to the working directory, was refused as `--out : … is a directory (EISDIR)`.
    for (const args of [['check', '--base', base, '--format', 'sarif', '--verify', 'touch ran', '--out', ''], ['check', '--base', base, '--format', 'junit', '--out=']]) {
      const r = await runCordon(args, { env: sandbox.env, cwd: dir });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(flat(r.stderr)).toContain('--out "": a file name cannot be empty');
      expect(r.stderr).toContain('Code: CORDON_BAD_INPUT');
      expect(r.stderr).not.toContain('EISDIR');
    }
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    writeSyntheticBatch(sandbox.dataDir);
    const a = await runCordon(['analyze', '--all', '--out', ''], { env: sandbox.env });
    expect(a.exitCode, a.stderr).toBe(2);
    expect(flat(a.stderr)).toContain('--out "": a file name cannot be empty');
  }, 120_000);

  it('a FIFO, a character device and /dev/stdout are written in place, never replaced; a socket, or a FIFO nobody opens within 5 s, is exit 2', async () => {
    const dir = repo();
    const base = git(dir, ['rev-parse', 'HEAD'], sandbox.env).trim();
    const out = sandbox.dir('special-out');
    const check = (file: string, shell = '') =>
      shell ? runProcess(['sh', '-c', `"$0" "$@" ${shell}`, process.execPath, CORDON_BIN, 'check', '--base', base, '--format', 'junit', '--out', file], { env: sandbox.env, cwd: dir }) : runCordon(['check', '--base', base, '--format', 'junit', '--out', file], { env: sandbox.env, cwd: dir });
    // A character device: /dev/null stays the device (as root, a rename over it replaced the system's).
    const devNull = await check('/dev/null');
    expect({ exitCode: devNull.exitCode, stderr: devNull.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    // A FIFO whose reader starts after cordon (as `cat fifo & cordon check --out fifo` may):
    // the report waits for it, arrives through it, and the FIFO stays one.
    const fifo = join(out, 'report.fifo');
    expect((await runProcess(['mkfifo', fifo])).exitCode).toBe(0);
    const writing = check(fifo);
    await new Promise((done) => setTimeout(done, 1000));
    // A reader that gets nothing is ended after a while rather than holding the test.
    const reader = runProcess(['timeout', '60', 'cat', fifo]);
    const viaFifo = await writing;
    expect({ exitCode: viaFifo.exitCode, stderr: viaFifo.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect((await reader).stdout).toMatch(/<testsuites/);
    expect(statSync(fifo).isFIFO()).toBe(true);
    // Nobody reads it: exit 2 after a bounded wait, not a wait for ever.
    const unread = await check(fifo);
    expect(unread.exitCode).toBe(2);
    expect(flat(unread.stderr)).toContain(`--out ${fifo}: cannot write the report: no process opened it for reading within 5 s`);
    // /dev/stdout into a pipe, and into a file that already holds the text verdict: both kept.
    const piped = await check('/dev/stdout', '| cat');
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/<testsuites[\s\S]*\naccepted: /);
    const file = join(out, 'both.txt');
    const toFile = await check('/dev/stdout', `> '${file}'`);
    expect(toFile.exitCode, toFile.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^<\?xml[\s\S]*<\/testsuites>\naccepted: [\s\S]*passed\n$/);
    // A socket: refused, left as it was.
    const socketPath = join(out, 'report.sock');
    const server = net.createServer().listen(socketPath);
    await once(server, 'listening');
    try {
      const r = await check(socketPath);
      expect(r.exitCode).toBe(2);
      expect(flat(r.stderr)).toContain(`--out ${socketPath}: cannot write the report: it is a socket`);
      expect(statSync(socketPath).isSocket()).toBe(true);
    } finally {
      server.close();
    }
  }, 120_000);

  it("a report written into the work tree is not the agent's change: CI (check --base) and an armed envelope", async () => {
    const dir = repo();
    const base = git(dir, ['rev-parse', 'HEAD'], sandbox.env).trim();
    for (const [format, file] of [['sarif', 'cordon.sarif'], ['junit', 'reports/junit.xml'], ['github', 'cordon.txt']] as const) {
      mkdirSync(join(dir, 'reports'), { recursive: true });
      // CI: the help's own example twice; the second run sees the first report.
      for (let i = 0; i < 2; i++) {
        const r = await runCordon(['check', '--base', base, '--format', format, '--out', file], { env: sandbox.env, cwd: dir });
        expect(r.exitCode, `${format} run ${i}: ${r.stderr}`).toBe(0);
      }
    }
    // A report changed after cordon wrote it is audited again.
    writeFileSync(join(dir, 'cordon.sarif'), 'the agent wrote this');
    const changed = await runCordon(['check', '--base', base, '--format', 'sarif'], { env: sandbox.env, cwd: dir });
    expect(changed.exitCode).toBe(2);
    expect(flat(changed.stderr)).toContain('cordon.sarif');
    // An armed envelope: same example, accepted twice; the agent's own file is still rejected.
    const armedDir = makeRepo(sandbox.dir('armed'), { 'src/a.txt': 'a\n' }, sandbox.env);
    expect((await runCordon(['arm', 'x', '--allow', 'src/**'], { env: sandbox.env, cwd: armedDir })).exitCode).toBe(0);
    writeFiles(armedDir, { 'src/a.txt': 'b\n' });
    mkdirSync(join(armedDir, 'out'));
    for (const [format, file] of [['sarif', 'cordon.sarif'], ['junit', 'junit.xml'], ['github', 'out/gh.txt']] as const) {
      for (let i = 0; i < 2; i++) {
        const r = await runCordon(['check', '--format', format, '--out', file], { env: sandbox.env, cwd: armedDir });
        expect(r.exitCode, `${format} run ${i}: ${r.stdout}${r.stderr}`).toBe(0);
      }
    }
    writeFiles(armedDir, { 'junit.xml': '<forged/>' });
    const forged = await runCordon(['check'], { env: sandbox.env, cwd: armedDir });
    expect(forged.exitCode).toBe(3);
    expect(forged.stdout).toContain('junit.xml');
  }, 180_000);
});
