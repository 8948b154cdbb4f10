import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirForTest } from '../../../../test/support/temp.js';
import { checkPaths, resolveDirOrigins, resolvePaths } from '../../src/util/paths.js';

// The one place cordon's per-user directories are resolved (util/paths.ts): a relative
// CORDON_*_DIR is refused, a relative XDG_*_HOME ignored (the XDG Base Directory specification),
// and checkPaths refuses one that exists but is not a directory, naming the variable.

const HOME = '/home/u';

describe('resolvePaths', () => {
  it('CORDON_*_DIR, then an absolute XDG_*_HOME, then the home directory', () => {
    expect(resolvePaths({ HOME, CORDON_DATA_DIR: '/d', XDG_CONFIG_HOME: '/x' }, 'linux')).toEqual({ dataDir: '/d', configDir: '/x/cordon', cacheDir: `${HOME}/.cache/cordon` });
  });

  it('ignores a relative XDG_*_HOME, as the XDG specification says, and says which variable decided', () => {
    const env = { HOME, XDG_DATA_HOME: 'rel', XDG_CONFIG_HOME: './c', XDG_CACHE_HOME: 'x/y' };
    expect(resolvePaths(env, 'linux')).toEqual({ dataDir: `${HOME}/.local/share/cordon`, configDir: `${HOME}/.config/cordon`, cacheDir: `${HOME}/.cache/cordon` });
    expect(resolveDirOrigins(env, 'linux').data).toEqual({ dir: `${HOME}/.local/share/cordon`, variable: 'HOME', value: HOME });
    expect(resolveDirOrigins({ HOME, XDG_DATA_HOME: '/x' }, 'linux').data).toEqual({ dir: '/x/cordon', variable: 'XDG_DATA_HOME', value: '/x' });
  });

  it('refuses a relative CORDON_*_DIR, naming the variable and its value', () => {
    for (const name of ['CORDON_DATA_DIR', 'CORDON_CONFIG_DIR', 'CORDON_CACHE_DIR']) {
      expect(() => resolvePaths({ HOME, [name]: 'relative/dir' }, 'linux')).toThrow(
        expect.objectContaining({ code: 'CORDON_BAD_INPUT', exit: 2, message: expect.stringMatching(new RegExp(`^${name}=relative/dir: not an absolute path`)), details: { variable: name, value: 'relative/dir' } }),
      );
    }
  });
});

describe('checkPaths', () => {
  it('accepts directories and directories not created yet', () => {
    const root = tempDirForTest('cordon-paths-');
    mkdirSync(join(root, 'data'));
    const env = { HOME: root, CORDON_DATA_DIR: join(root, 'data'), CORDON_CONFIG_DIR: join(root, 'not-yet', 'config') };
    expect(checkPaths(env, 'linux')).toEqual({ dataDir: join(root, 'data'), configDir: join(root, 'not-yet', 'config'), cacheDir: join(root, '.cache', 'cordon') });
  });

  it('refuses a directory that is a file or lies below one, naming the variable that put it there', () => {
    const root = tempDirForTest('cordon-paths-');
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    expect(() => checkPaths({ HOME: root, CORDON_CACHE_DIR: file }, 'linux')).toThrow(expect.objectContaining({ code: 'CORDON_BAD_INPUT', message: `CORDON_CACHE_DIR=${file}: not a directory; set it to an absolute path of a directory, or unset it` }));
    expect(() => checkPaths({ HOME: root, XDG_DATA_HOME: file }, 'linux')).toThrow(
      expect.objectContaining({ message: `XDG_DATA_HOME=${file}: cordon's data directory ${join(file, 'cordon')} is not a directory (a file is in the way); set it to an absolute path of a directory, or unset it` }),
    );
    expect(() => checkPaths({ HOME: file }, 'linux')).toThrow(expect.objectContaining({ message: `HOME=${file}: cordon's data directory ${join(file, '.local/share/cordon')} is not a directory (a file is in the way)` }));
  });
});
