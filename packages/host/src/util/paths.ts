import { join } from 'node:path';
import type { CordonPaths } from '@cordon/plugin-api';
import { nodeOs } from './builtins.js';

/**
 * `os.homedir()` with `node:os` loaded on first use: callers try `HOME`/`USERPROFILE` first (as
 * libuv does), so the hook's start-up never loads the module.
 */
export const homedir = (): string => nodeOs().homedir();

/**
 * Resolves cordon's per-user directories the way oclif resolves them for `dirname: cordon`
 * (so the hot path and `cordon plugins` agree on where plugins live):
 * `$CORDON_<KIND>_DIR`, else `$XDG_<KIND>_HOME/cordon`, else `%LOCALAPPDATA%\cordon` on Windows,
 * else `~/.local/share/cordon`, `~/.config/cordon`, `~/.cache/cordon`.
 */
export function resolvePaths(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): CordonPaths {
  const home = env.HOME || env.USERPROFILE || homedir();
  const pick = (kind: 'DATA' | 'CONFIG' | 'CACHE', fallback: string): string => {
    const own = env[`CORDON_${kind}_DIR`];
    if (own) return own;
    const base = env[`XDG_${kind}_HOME`];
    if (base) return join(base, 'cordon');
    if (platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'cordon');
    return join(home, fallback, 'cordon');
  };
  return {
    dataDir: pick('DATA', join('.local', 'share')),
    configDir: pick('CONFIG', '.config'),
    cacheDir: pick('CACHE', '.cache'),
  };
}
