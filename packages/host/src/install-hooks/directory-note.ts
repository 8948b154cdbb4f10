import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { displayName } from '../output/terminal.js';
import { resolveDirOrigins, type DirKind } from '../util/paths.js';

/** The variables that move cordon's directories away from their defaults for this process only, with the directory each moves. */
const DIRECTORY_VARIABLES = [
  ['CORDON_DATA_DIR', 'data'],
  ['CORDON_CONFIG_DIR', 'config'],
  ['CORDON_CACHE_DIR', 'cache'],
] as const satisfies ReadonlyArray<readonly [string, DirKind]>;

/** `path` made absolute and, when it exists, through its links, so two spellings of one directory compare equal. */
function canonical(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

/**
 * A note for `install-hooks` when this process's environment sets one of the `CORDON_*_DIR`
 * variables to a directory other than the default it replaces, else undefined. The hook command
 * written into an agent's config carries no environment: the agent runs it with its own, so
 * unless the agent starts with the same variables, the hook reads its plugins from, and logs
 * into, the directories that environment names (without them, the defaults below `HOME`), finds
 * no dialect plugin there and records nothing. A variable naming its default (compared as
 * resolved paths, links followed) changes nothing for the hook and is not mentioned. The values
 * are shown as `displayName` shows a path (quoted and escaped when they hold what a terminal
 * must not see raw). `env` defaults to `process.env`.
 */
export function directoryVariablesNote(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = DIRECTORY_VARIABLES.filter(([name]) => env[name]);
  if (named.length === 0) return undefined;
  const defaults = resolveDirOrigins(Object.fromEntries(Object.entries(env).filter(([name]) => !named.some(([n]) => n === name))));
  const set = named.filter(([name, kind]) => canonical(env[name]!) !== canonical(defaults[kind].dir)).map(([name]) => name);
  if (set.length === 0) return undefined;
  const shown = set.map((name) => `${name}=${displayName(env[name]!)}`).join(', ');
  const dataDefault = set.includes('CORDON_DATA_DIR') ? ` (without CORDON_DATA_DIR: ${displayName(defaults.data.dir)})` : '';
  return `${shown} ${set.length > 1 ? 'are' : 'is'} set here, but the hooks run in each agent's own environment: start the agents with the same ${set.length > 1 ? 'variables' : 'variable'}, or the hook reads the default directories${dataDefault}, finds no plugins there and records nothing`;
}
