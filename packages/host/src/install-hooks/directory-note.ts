import { displayName } from '../output/terminal.js';
import { resolveDirOrigins } from '../util/paths.js';

/** The variables that move cordon's directories away from their defaults for this process only. */
const DIRECTORY_VARIABLES = ['CORDON_DATA_DIR', 'CORDON_CONFIG_DIR', 'CORDON_CACHE_DIR'] as const;

/**
 * A note for `install-hooks` when this process's environment sets one of the `CORDON_*_DIR`
 * variables, else undefined. The hook command written into an agent's config carries no
 * environment: the agent runs it with its own, so unless the agent starts with the same
 * variables, the hook reads its plugins from, and logs into, the directories that environment
 * names (without them, the defaults below `HOME`), finds no dialect plugin there and records
 * nothing. The values are shown as `displayName` shows a path (quoted and escaped when they hold what a terminal must not see raw). `env` defaults to `process.env`.
 */
export function directoryVariablesNote(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = DIRECTORY_VARIABLES.filter((name) => env[name]);
  if (set.length === 0) return undefined;
  const defaults = resolveDirOrigins(Object.fromEntries(Object.entries(env).filter(([name]) => !set.includes(name as (typeof DIRECTORY_VARIABLES)[number]))));
  const shown = set.map((name) => `${name}=${displayName(env[name]!)}`).join(', ');
  const dataDefault = set.includes('CORDON_DATA_DIR') ? ` (without CORDON_DATA_DIR: ${displayName(defaults.data.dir)})` : '';
  return `${shown} ${set.length > 1 ? 'are' : 'is'} set here, but the hooks run in each agent's own environment: start the agents with the same ${set.length > 1 ? 'variables' : 'variable'}, or the hook reads the default directories${dataDefault}, finds no plugins there and records nothing`;
}
