import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// uninstall-hooks takes away the config directories install-hooks created for its files
// (~/.gemini, ~/.cursor, ~/.hermes), so `install-hooks --all` does not take an agent that was
// never installed for one that is; a directory that holds anything else stays.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  box = makeSandbox('cordon-created-dirs-');
  linkPlugins(box.dataDir, ['gemini', 'cursor', 'hermes', 'claude-code', 'codex']);
  // No agent binary on PATH: only config directories make an agent "installed here".
  env = { ...box.env, PATH: `${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin`, HERMES_HOME: join(box.home, '.hermes') };
});
afterEach(() => box.cleanup());

const agentsIn = (stdout: string) => [...stdout.matchAll(/^== (\S+) \(user\)$/gm)].map((m) => m[1]);

describe('directories install-hooks created', () => {
  it('are removed by uninstall-hooks when empty, so --all no longer finds those agents', async () => {
    for (const agent of ['gemini', 'cursor', 'hermes']) {
      const r = await runCordon(['install-hooks', '--agent', agent, '--write'], { env });
      expect(r.exitCode, r.stderr).toBe(0);
    }
    for (const dir of ['.gemini', '.cursor', '.hermes']) expect(existsSync(join(box.home, dir)), dir).toBe(true);
    expect(agentsIn((await runCordon(['install-hooks', '--all'], { env })).stdout).sort()).toEqual(['cursor', 'gemini', 'hermes']);
    // A dry run says it would delete the files install-hooks created; the run says it deleted them, not "wrote".
    const dry = await runCordon(['uninstall-hooks', '--agent', 'gemini'], { env });
    expect(dry.stdout).toContain(`would delete ${join(box.home, '.gemini/settings.json')}: `);
    const un = await runCordon(['uninstall-hooks', '--agent', 'gemini', '--agent', 'cursor', '--agent', 'hermes', '--write'], { env });
    expect(un.exitCode, un.stderr).toBe(0);
    expect(un.stdout).toContain(`deleted ${join(box.home, '.gemini/settings.json')}: `);
    expect(un.stdout).not.toMatch(/^wrote .*delete the file/m);
    for (const dir of ['.gemini', '.cursor', '.hermes']) expect(existsSync(join(box.home, dir)), dir).toBe(false);
    expect(agentsIn((await runCordon(['install-hooks', '--all'], { env })).stdout)).toEqual([]);
  });

  it('one directory holding two of an agent\'s files (~/.codex: hooks.json and config.toml) goes once both are deleted', async () => {
    const before = readdirSync(box.home).sort();
    const r = await runCordon(['install-hooks', '-a', 'codex', '-a', 'claude-code', '-a', 'gemini', '--write'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(box.home, '.codex', 'hooks.json')) && existsSync(join(box.home, '.codex', 'config.toml'))).toBe(true);
    const un = await runCordon(['uninstall-hooks', '--all', '--write'], { env });
    expect(un.exitCode, un.stderr).toBe(0);
    expect(readdirSync(box.home).sort()).toEqual(before);
    // Nothing left makes codex look installed: a fresh --all (the on-purpose record gone) finds no agent.
    const fresh = { ...env, CORDON_CONFIG_DIR: box.dir('fresh-config') };
    expect(agentsIn((await runCordon(['install-hooks', '--all'], { env: fresh })).stdout)).toEqual([]);
  });

  it('a created directory the agent or the user wrote into, and one that existed before, stay', async () => {
    mkdirSync(join(box.home, '.cursor'));
    for (const agent of ['gemini', 'cursor']) expect((await runCordon(['install-hooks', '--agent', agent, '--write'], { env })).exitCode).toBe(0);
    writeFileSync(join(box.home, '.gemini', 'oauth_creds.json'), '{}');
    expect((await runCordon(['uninstall-hooks', '--agent', 'gemini', '--agent', 'cursor', '--write'], { env })).exitCode).toBe(0);
    expect(existsSync(join(box.home, '.gemini', 'oauth_creds.json'))).toBe(true);
    expect(existsSync(join(box.home, '.gemini', 'settings.json'))).toBe(false);
    expect(existsSync(join(box.home, '.cursor'))).toBe(true);
  });
});
