import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { unprivilegedRepo } from '../../../../test/support/unprivileged.js';

// CORDON_DATA_DIR, CORDON_CONFIG_DIR and CORDON_CACHE_DIR (util/paths.ts): a relative value, or
// one that exists but is not a directory, is one clear error on every command and route (exit 2,
// CORDON_BAD_INPUT, the variable and its value named; never Node's raw `[ENOTDIR]` warning from
// oclif's plugin loading), while the hook stays silent with exit 0 and writes nothing. So is one
// cordon cannot list and enter (`chmod 000`; never Node's raw `[EACCES]` warning), tested as
// `nobody` since root passes every permission check. A relative XDG_*_HOME is ignored, by cordon
// and by oclif alike.

const VARIABLES = ['CORDON_DATA_DIR', 'CORDON_CONFIG_DIR', 'CORDON_CACHE_DIR'] as const;
const PAYLOAD = readFileSync(join(REPO_ROOT, 'test/fixtures/hook-payloads/claude-code.PreToolUse.Bash-blocked-by-hook.json'), 'utf8');

let box: Sandbox;
let file: string;
let cwd: string;
beforeEach(() => {
  box = makeSandbox('cordon-dir-env-');
  file = join(box.root, 'a-file');
  writeFileSync(file, 'x\n');
  cwd = box.dir('cwd');
  linkPlugins(box.dataDir, ['claude-code']);
});
afterEach(() => box.cleanup());

/** The refusal of `variable=value` as every command prints it. */
function expectRefused(r: { exitCode: number | null; stdout: string; stderr: string }, variable: string, value: string, what: string): void {
  expect(r.exitCode, `${what}: ${r.stderr}`).toBe(2);
  expect(r.stderr, what).toMatch(new RegExp(`^    Error: ${variable}=${value.replace(/[/.]/g, '\\$&')}: not (a directory|an absolute path)`));
  expect(r.stderr, what).toContain('Code: CORDON_BAD_INPUT');
  expect(r.stderr, what).not.toContain('ENOTDIR');
  expect(r.stderr, what).not.toContain('(node:');
}

describe('a directory variable cordon cannot use', () => {
  it('is refused by every route, a file and a relative path alike, and nothing is created', async () => {
    for (const variable of VARIABLES) {
      for (const value of [file, 'relative/dir']) {
        const env = { ...box.env, [variable]: value, CORDON_SAMPLER: 'off' };
        for (const args of [['info'], ['--version'], ['doctor'], ['check'], ['control', 'run', '--', 'true'], ['pcodx', 'ids']]) {
          expectRefused(await runCordon(args, { env, cwd }), variable, value, `${variable}=${value} cordon ${args.join(' ')}`);
        }
        expect(readdirSync(cwd), `${variable}=${value}`).toEqual([]);
      }
    }
  });

  it('reduce refuses a bad data directory', async () => {
    for (const value of [file, 'relative/dir']) expectRefused(await runCordon(['reduce'], { env: { ...box.env, CORDON_DATA_DIR: value }, cwd }), 'CORDON_DATA_DIR', value, value);
  });

  it('--json gives the JSON error document', async () => {
    const r = await runCordon(['info', '--json'], { env: { ...box.env, CORDON_DATA_DIR: file } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: 'CORDON_BAD_INPUT', details: { variable: 'CORDON_DATA_DIR', value: file, dataDir: file }, message: `CORDON_DATA_DIR=${file}: not a directory; set it to an absolute path of a directory, or unset it` },
    });
  });

  it('leaves the hook silent with exit 0, on its own route and through oclif, writing nothing', async () => {
    for (const variable of VARIABLES) {
      for (const value of [file, 'relative/dir']) {
        for (const via of [{}, { CORDON_HOOK_VIA_OCLIF: '1' }]) {
          const r = await runCordon(['hook', '--agent', 'claude-code'], { env: { ...box.env, ...via, [variable]: value }, cwd, input: PAYLOAD });
          expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }, `${variable}=${value} ${JSON.stringify(via)}`).toEqual({ exitCode: 0, stdout: '', stderr: '' });
        }
        expect(readdirSync(cwd), `${variable}=${value}`).toEqual([]);
      }
    }
    expect(readFileSync(file, 'utf8')).toBe('x\n');
    expect(existsSync(join(box.dataDir, 'runs'))).toBe(false);
  });
});

describe('a directory cordon cannot list or enter', () => {
  let root: string;
  let locked: string[] = [];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cordon-dir-access-'));
    locked = [];
  });
  afterEach(() => {
    for (const dir of locked) chmodSync(dir, 0o700);
    rmSync(root, { recursive: true, force: true });
  });

  /** `dir` made unreadable and unsearchable (mode 000) until the test ends. */
  const lock = (dir: string): void => {
    chmodSync(dir, 0o000);
    locked.push(dir);
  };

  it('is refused by every route with one cordon error, the hook staying silent with exit 0', async () => {
    const { cordon } = await unprivilegedRepo(root, { 'a.txt': 'a\n' });
    const home = join(root, 'home');
    for (const [variable, name] of [['CORDON_DATA_DIR', 'data'], ['CORDON_CONFIG_DIR', 'config'], ['CORDON_CACHE_DIR', 'cache']] as const) {
      const dir = join(home, name);
      lock(dir);
      for (const args of [['info'], ['--version'], ['check'], ['control', 'run', '--', 'true'], ['reduce']]) {
        const r = await cordon(args);
        const what = `${variable} cordon ${args.join(' ')}`;
        expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }, what).toEqual({
          exitCode: 2,
          stdout: '',
          stderr: `    Error: ${variable}=${dir}: permission denied: cordon cannot list or enter it; give your user read and search permission on it (chmod u+rx), or set ${variable} to another directory\n    Code: CORDON_BAD_INPUT\n`,
        });
      }
      const json = await cordon(['info', '--json']);
      expect(json.exitCode).toBe(2);
      expect(json.stderr).toBe('');
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { variable, value: dir } });
      for (const via of [{}, { CORDON_HOOK_VIA_OCLIF: '1' }] as Array<Record<string, string>>) {
        const r = await cordon(['hook', '--agent', 'claude-code'], via, PAYLOAD);
        expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }, `${variable} hook ${JSON.stringify(via)}`).toEqual({ exitCode: 0, stdout: '', stderr: '' });
      }
      chmodSync(dir, 0o700);
    }
    // With every directory readable again, the same commands run.
    expect((await cordon(['info'])).exitCode).toBe(0);
  });

  it('names the directory when one above it cannot be entered', async () => {
    const { cordon } = await unprivilegedRepo(root, { 'a.txt': 'a\n' });
    const above = join(root, 'home', 'above');
    mkdirSync(join(above, 'data'), { recursive: true });
    lock(above);
    const dir = join(above, 'data');
    const r = await cordon(['info'], { CORDON_DATA_DIR: dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`    Error: CORDON_DATA_DIR=${dir}: permission denied: cordon cannot list or enter it; give your user read and search permission on it (chmod u+rx), or set CORDON_DATA_DIR to another directory\n    Code: CORDON_BAD_INPUT\n`);
  });
});

describe('a relative XDG_*_HOME', () => {
  it('is ignored by cordon and by oclif: both use the home directory form', async () => {
    const env: NodeJS.ProcessEnv = { ...box.env, XDG_DATA_HOME: 'rel-data', XDG_CONFIG_HOME: 'rel-config', XDG_CACHE_HOME: 'rel-cache' };
    for (const name of VARIABLES) delete env[name];
    const dataDir = join(box.home, '.local', 'share', 'cordon');
    mkdirSync(dataDir, { recursive: true });
    linkPlugins(dataDir, ['claude-code']);
    const info = await runCordon(['info', '--json'], { env, cwd });
    expect(info.exitCode, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout).paths).toEqual({ data_dir: dataDir, config_dir: join(box.home, '.config', 'cordon'), cache_dir: join(box.home, '.cache', 'cordon') });
    // oclif's plugin loading read the same directory: the linked plugin is listed.
    const plugins = await runCordon(['plugins', '--json'], { env, cwd });
    expect(plugins.exitCode, plugins.stderr).toBe(0);
    expect((JSON.parse(plugins.stdout) as Array<{ name: string }>).map((p) => p.name)).toContain('@cordon/claude-code');
    expect(readdirSync(cwd)).toEqual([]);
  });
});
