import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// CORDON_DATA_DIR, CORDON_CONFIG_DIR and CORDON_CACHE_DIR (util/paths.ts): a relative value, or
// one that exists but is not a directory, is one clear error on every command and route (exit 2,
// CORDON_BAD_INPUT, the variable and its value named; never Node's raw `[ENOTDIR]` warning from
// oclif's plugin loading), while the hook stays silent with exit 0 and writes nothing. A relative
// XDG_*_HOME is ignored, by cordon and by oclif alike.

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

describe('a relative XDG_*_HOME', () => {
  it('is ignored by cordon and by oclif: both use the home directory form', async () => {
    const env: NodeJS.ProcessEnv = { ...box.env, XDG_DATA_HOME: 'rel-data', XDG_CONFIG_HOME: 'rel-config', XDG_CACHE_HOME: 'rel-cache' };
    for (const name of VARIABLES) delete env[name];
    const dataDir = join(box.home, '.local', 'share', 'cordon');
    mkdirSync(dataDir, { recursive: true });
    linkPlugins(dataDir, ['claude-code']);
    const info = await runCordon(['info', '--json'], { env, cwd });
    expect(info.exitCode, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout).paths).toEqual({ dataDir, configDir: join(box.home, '.config', 'cordon'), cacheDir: join(box.home, '.cache', 'cordon') });
    // oclif's plugin loading read the same directory: the linked plugin is listed.
    const plugins = await runCordon(['plugins', '--json'], { env, cwd });
    expect(plugins.exitCode, plugins.stderr).toBe(0);
    expect((JSON.parse(plugins.stdout) as Array<{ name: string }>).map((p) => p.name)).toContain('@cordon/claude-code');
    expect(readdirSync(cwd)).toEqual([]);
  });
});
