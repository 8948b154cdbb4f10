import { isAbsolute, join } from 'node:path';
import type { CordonPaths } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { directoryAccessProblem, directoryProblem } from '../io/directory.js';
import { nodeOs } from './builtins.js';

/**
 * `os.homedir()` with `node:os` loaded on first use: callers try `HOME`/`USERPROFILE` first (as
 * libuv does), so the hook's start-up never loads the module.
 */
export const homedir = (): string => nodeOs().homedir();

/** One of cordon's per-user directories. */
export type DirKind = 'data' | 'config' | 'cache';

const KINDS: readonly DirKind[] = ['data', 'config', 'cache'];
const KEYS: Readonly<Record<DirKind, keyof CordonPaths>> = { data: 'dataDir', config: 'configDir', cache: 'cacheDir' };

/** Where one of cordon's directories comes from: the directory and the variable that decided it. */
export interface DirOrigin {
  /** The directory (absolute unless `HOME` itself is relative). */
  readonly dir: string;
  /** The variable that decided it: `CORDON_DATA_DIR`, `XDG_DATA_HOME`, `LOCALAPPDATA`, `HOME`, … */
  readonly variable: string;
  /** That variable's value (for `HOME` unset, with `USERPROFILE` unset too: the OS's home directory). */
  readonly value: string;
}

/**
 * Where each of cordon's per-user directories is and which variable put it there, the way oclif
 * resolves them for `dirname: cordon` (so the hot path and `cordon plugins` agree on where plugins
 * live): `$CORDON_<KIND>_DIR`, else `$XDG_<KIND>_HOME/cordon`, else `%LOCALAPPDATA%\cordon` on
 * Windows, else `~/.local/share/cordon`, `~/.config/cordon`, `~/.cache/cordon`.
 *
 * A relative `XDG_<KIND>_HOME` is ignored, as the XDG Base Directory specification says ("If an
 * implementation encounters a relative path in any of these variables it should consider the
 * path invalid and ignore it"). A relative `CORDON_<KIND>_DIR` is refused: its meaning would
 * change with the working directory, and the hook runs in each agent's. Throws `CORDON_BAD_INPUT`
 * (exit 2) naming the variable and its value. No file-system access ({@link checkPaths} looks).
 */
export function resolveDirOrigins(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Record<DirKind, DirOrigin> {
  const pick = (kind: DirKind): DirOrigin => {
    const name = kind.toUpperCase();
    const ownName = `CORDON_${name}_DIR`;
    const own = env[ownName];
    if (own) {
      if (!isAbsolute(own)) throw badDirVariable(ownName, own, 'not an absolute path (a relative one would change with the working directory)');
      return { dir: own, variable: ownName, value: own };
    }
    const baseName = `XDG_${name}_HOME`;
    const base = env[baseName];
    if (base && isAbsolute(base)) return { dir: join(base, 'cordon'), variable: baseName, value: base };
    if (platform === 'win32' && env.LOCALAPPDATA) return { dir: join(env.LOCALAPPDATA, 'cordon'), variable: 'LOCALAPPDATA', value: env.LOCALAPPDATA };
    const home = env.HOME ? { variable: 'HOME', value: env.HOME } : env.USERPROFILE ? { variable: 'USERPROFILE', value: env.USERPROFILE } : { variable: 'HOME', value: homedir() };
    const fallback = kind === 'data' ? join('.local', 'share') : `.${kind}`;
    return { dir: join(home.value, fallback, 'cordon'), ...home };
  };
  return { data: pick('data'), config: pick('config'), cache: pick('cache') };
}

/**
 * Cordon's per-user directories ({@link resolveDirOrigins}: a relative `XDG_*_HOME` ignored, a
 * relative `CORDON_*_DIR` refused with `CORDON_BAD_INPUT`). No file-system access.
 */
export function resolvePaths(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): CordonPaths {
  const origins = resolveDirOrigins(env, platform);
  return pathsOf(origins);
}

/** The directories of {@link resolveDirOrigins}' answer. */
function pathsOf(origins: Record<DirKind, DirOrigin>): CordonPaths {
  return { dataDir: origins.data.dir, configDir: origins.config.dir, cacheDir: origins.cache.dir };
}

/**
 * {@link resolvePaths}, and each directory looked at (`stat`, and `access` for one that exists):
 * one that exists but is not a directory, or lies below a file, is refused with
 * `CORDON_BAD_INPUT` (exit 2) naming the variable that put it there and its value
 * (`CORDON_DATA_DIR=/etc/passwd: not a directory`); so is one this process cannot list and enter
 * (`chmod 000`, or a directory above it that cannot be entered: `CORDON_DATA_DIR=/x: permission
 * denied: cordon cannot list or enter it`), which oclif's plugin loading would meet with Node's
 * raw `[EACCES]` warning. A directory that does not exist yet is fine: it is created when first
 * written. Run before oclif loads (cli/environment.ts), whose plugin loading reads
 * `<data>/package.json`, and where a fast route's own read of a directory failed (bus/load-host.ts
 * `planHostLoad`).
 */
export function checkPaths(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): CordonPaths {
  const origins = resolveDirOrigins(env, platform);
  for (const kind of KINDS) {
    const { dir, variable, value } = origins[kind];
    const details = { [KEYS[kind]]: dir };
    const what = dir === value ? '' : `cordon's ${kind} directory ${dir}: `;
    const why = directoryProblem(dir);
    // Not made yet: it is created when first written.
    if (why === 'no such directory') continue;
    // Exists and is no directory, or lies below a file.
    if (why === 'not a directory') throw badDirVariable(variable, value, dir === value ? 'not a directory' : `cordon's ${kind} directory ${dir} is not a directory (a file is in the way)`, details);
    const denied = why ?? directoryAccessProblem(dir);
    if (denied === undefined) continue;
    const fix = variable.startsWith('CORDON_') || variable.startsWith('XDG_') ? `; give your user read and search permission on it (chmod u+rx), or set ${variable} to another directory` : '';
    const said = denied === 'permission denied' ? 'permission denied: cordon cannot list or enter it' : denied;
    throw badDirVariable(variable, value, `${what}${said}`, details, fix);
  }
  return pathsOf(origins);
}

/**
 * `CORDON_BAD_INPUT`: `<variable>=<value>: <why><fix>`; `fix` defaults to `; set it to an absolute
 * path of a directory, or unset it` for cordon's and the XDG variables, nothing for the others.
 */
function badDirVariable(variable: string, value: string, why: string, details: Record<string, unknown> = {}, fix?: string): CordonError {
  const said = fix ?? (variable.startsWith('CORDON_') || variable.startsWith('XDG_') ? '; set it to an absolute path of a directory, or unset it' : '');
  return new CordonError(ERROR_CODES.BAD_INPUT, `${variable}=${value}: ${why}${said}`, { details: { variable, value, ...details } });
}
