import { linkSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../test/support/cli.js';
import { cordonJson, hooksSandbox, writeFiles } from './support.js';

// Found by a hostile-input probe: a config hard-linked into a dotfiles directory
// (~/.claude/settings.json and ~/dotfiles/claude.json one file) was split by install: the atomic
// write renamed a new file over the name, so the dotfiles copy kept the old bytes and the link
// count of both fell to 1, silently.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-hard-link-'));
});
afterEach(() => sandbox.cleanup());

describe('an agent config with more than one hard link', () => {
  it('is refused naming it and the count (CORDON_CONFIG_EDIT, exit 2) by install and its dry run; both names stay one file', async () => {
    const dots = sandbox.dir('dotfiles');
    writeFileSync(join(dots, 'claude.json'), '{"model": "x"}\n');
    writeFiles(home, { '.claude/.keep': '' });
    const path = join(home, '.claude/settings.json');
    linkSync(join(dots, 'claude.json'), path);
    for (const args of [['install-hooks', '--write'], ['install-hooks'], ['uninstall-hooks', '--write']]) {
      const r = await cordonJson([...args, '--agent', 'claude-code'], env, project);
      if (args[0] === 'uninstall-hooks') {
        expect(r.exitCode, r.stderr).toBe(0); // nothing of cordon's there: no change, nothing refused
        continue;
      }
      expect([args.join(' '), r.exitCode], r.stderr).toEqual([args.join(' '), 2]);
      expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
      expect(r.json.error.message).toContain(`${path}: is one of 2 hard links to the same file; cordon writes a config by renaming a new file into place`);
      expect(r.json.error.message).toContain('nothing was written');
    }
    expect(statSync(path).nlink).toBe(2);
    expect(statSync(path).ino).toBe(statSync(join(dots, 'claude.json')).ino);
    expect(readFileSync(path, 'utf8')).toBe('{"model": "x"}\n');
  });

  it('holding cordon\'s hooks, is refused by uninstall too', async () => {
    writeFiles(home, { '.cursor/hooks.json': '{"version": 1}\n' });
    const path = join(home, '.cursor/hooks.json');
    expect((await cordonJson(['install-hooks', '--agent', 'cursor', '--write'], env, project)).exitCode).toBe(0);
    const installed = readFileSync(path, 'utf8');
    linkSync(path, join(sandbox.dir('dotfiles'), 'cursor.json'));
    const r = await cordonJson(['uninstall-hooks', '--agent', 'cursor', '--write'], env, project);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
    expect(readFileSync(path, 'utf8')).toBe(installed);
    expect(statSync(path).nlink).toBe(2);
  });
});
