import { chmodSync, chownSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../test/support/cli.js';
import { cordonJson, hooksSandbox, writeFiles } from './support.js';

// Found by a hostile-input probe: root running install-hooks on another user's configs (`sudo
// cordon install-hooks --write` with that user's HOME) replaced each file by a root-owned one
// (the atomic write renames a new inode into place), so a 0600 settings.json could no longer be
// read by the user whose agent reads it, and a 0644 one no longer be edited by them.

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const OTHER = 65534; // nobody / nogroup

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-owner-'));
});
afterEach(() => sandbox.cleanup());

describe.skipIf(!asRoot)('an agent config owned by another user, written by root', () => {
  it('keeps its owner, group and mode through install and uninstall', async () => {
    const files: Record<string, string> = {
      '.claude/settings.json': '{"model": "x"}\n',
      '.codex/config.toml': 'model = "x"\n',
      '.gemini/settings.json': '{}\n',
      '.cursor/hooks.json': '{"version": 1}\n',
      '.hermes/config.yaml': 'model: x\n',
    };
    writeFiles(home, files);
    for (const path of Object.keys(files)) {
      chownSync(join(home, path), OTHER, OTHER);
      chmodSync(join(home, path), 0o600);
    }
    const owners = () => Object.keys(files).map((path) => { const s = statSync(join(home, path)); return [path, s.uid, s.gid, s.mode & 0o777]; });
    const expected = Object.keys(files).map((path) => [path, OTHER, OTHER, 0o600]);
    const agents = ['--agent', 'claude-code', '--agent', 'codex', '--agent', 'gemini', '--agent', 'cursor', '--agent', 'hermes'];

    const installed = await cordonJson(['install-hooks', ...agents, '--write'], env, project);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toContain('hook --agent claude-code');
    expect(owners()).toEqual(expected);

    const removed = await cordonJson(['uninstall-hooks', ...agents, '--write'], env, project);
    expect(removed.exitCode, removed.stderr).toBe(0);
    for (const [path, text] of Object.entries(files)) expect(readFileSync(join(home, path), 'utf8')).toBe(text);
    expect(owners()).toEqual(expected);
  });

  // The same probe: the files and directories root created in that user's home (~/.codex with
  // its hooks.json and config.toml, ~/.gemini, ~/.cursor) were root's, 0600 and 0700, so the
  // agent, running as the user, could not read them and ran no hooks.
  it('creates new files and directories in another user\'s home as theirs', async () => {
    chownSync(home, OTHER, OTHER);
    const created = ['.codex', '.codex/hooks.json', '.codex/config.toml', '.gemini', '.gemini/settings.json', '.cursor', '.cursor/hooks.json'];
    const agents = ['--agent', 'codex', '--agent', 'gemini', '--agent', 'cursor'];
    const installed = await cordonJson(['install-hooks', ...agents, '--write'], env, project);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(created.map((path) => { const s = statSync(join(home, path)); return [path, s.uid, s.gid]; })).toEqual(created.map((path) => [path, OTHER, OTHER]));
    const removed = await cordonJson(['uninstall-hooks', ...agents, '--write'], env, project);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(created.filter((path) => existsSync(join(home, path)))).toEqual([]);
  });
});
