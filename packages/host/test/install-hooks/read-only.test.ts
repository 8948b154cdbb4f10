import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../test/support/cli.js';
import { cordonJson, hooksSandbox, writeFiles } from './support.js';

// Found by a hostile-input probe: a config the user made read-only (chmod a-w, so the agent
// cannot rewrite it) was rewritten anyway, its 0444 kept: the atomic write replaces the file by
// a rename, which the file's own mode does not stop (only its directory's).

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-read-only-'));
});
afterEach(() => sandbox.cleanup());

describe('a read-only agent config', () => {
  it('is refused naming it and its mode (CORDON_CONFIG_EDIT, exit 2) by install, its dry run and uninstall; its bytes and mode stay', async () => {
    const dots = sandbox.dir('dotfiles');
    writeFiles(home, { '.codex/config.toml': 'model = "x"\n', '.cursor/hooks.json': '{"version": 1}\n', '.hermes/config.yaml': 'model: x\n' });
    writeFileSync(join(dots, 'gemini.json'), '{}\n');
    writeFiles(home, { '.gemini/.keep': '' });
    symlinkSync(join(dots, 'gemini.json'), join(home, '.gemini/settings.json'));
    const files: Array<[string, string, string]> = [
      ['codex', join(home, '.codex/config.toml'), join(home, '.codex/config.toml')],
      ['cursor', join(home, '.cursor/hooks.json'), join(home, '.cursor/hooks.json')],
      ['hermes', join(home, '.hermes/config.yaml'), join(home, '.hermes/config.yaml')],
      ['gemini', join(home, '.gemini/settings.json'), join(dots, 'gemini.json')],
    ];
    for (const [, , target] of files) chmodSync(target, 0o444);
    const before = files.map(([, , target]) => readFileSync(target, 'utf8'));
    for (const [agent, path, target] of files) {
      for (const args of [['install-hooks', '--write'], ['install-hooks']]) {
        const r = await cordonJson([...args, '--agent', agent], env, project);
        expect([agent, args.join(' '), r.exitCode], r.stderr).toEqual([agent, args.join(' '), 2]);
        expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
        const via = target === path ? '' : ` (through the link to ${target})`;
        expect(r.json.error.message).toBe(`${path}: is read-only${via}, mode 0444; cordon does not write over a file that is not writable: make it writable (chmod u+w ${target}) and run again, or leave cordon's hooks out of it; nothing was written`);
      }
    }
    expect(files.map(([, , target]) => readFileSync(target, 'utf8'))).toEqual(before);
    expect(files.map(([, , target]) => statSync(target).mode & 0o777)).toEqual([0o444, 0o444, 0o444, 0o444]);

    // Made writable, installed, made read-only again: uninstall refuses too; --check has nothing to write and passes.
    const gemini = join(dots, 'gemini.json');
    chmodSync(gemini, 0o644);
    expect((await cordonJson(['install-hooks', '--agent', 'gemini', '--write'], env, project)).exitCode).toBe(0);
    chmodSync(gemini, 0o444);
    expect((await cordonJson(['install-hooks', '--agent', 'gemini', '--check'], env, project)).exitCode).toBe(0);
    const installed = readFileSync(gemini, 'utf8');
    const un = await cordonJson(['uninstall-hooks', '--agent', 'gemini', '--write'], env, project);
    expect(un.exitCode, un.stderr).toBe(2);
    expect(un.json.error.code).toBe('CORDON_CONFIG_EDIT');
    expect(readFileSync(gemini, 'utf8')).toBe(installed);
  });
});
