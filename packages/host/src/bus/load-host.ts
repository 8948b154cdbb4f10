import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Interfaces } from '@oclif/core';
type Config = Interfaces.Config;
import { collectFromPackages, findPluginPackages } from '../plugins/discover.js';
import { collectFromOclif } from '../plugins/oclif-register.js';
import { resolvePaths } from '../util/paths.js';
import { CordonHost } from './host.js';

/** Absolute root of the @cordon/host package (two levels above `dist/bus/`). */
export const HOST_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const byConfig = new WeakMap<Config, Promise<CordonHost>>();

/**
 * The host for an oclif command: created once per `Config`, with plugins collected through
 * `config.runHook('cordon:register')` and applied in name order.
 */
export function loadHost(config: Config): Promise<CordonHost> {
  let pending = byConfig.get(config);
  if (!pending) {
    pending = (async () => {
      const host = new CordonHost(resolvePaths(), config.version);
      await host.applyPlugins(await collectFromOclif(config));
      return host;
    })();
    byConfig.set(config, pending);
  }
  return pending;
}

/**
 * The host without oclif, for the hot path and for tools: discovers plugins from the host's
 * package.json and `<dataDir>/package.json` exactly as oclif would, and applies them.
 */
export async function loadHostDirect(env: NodeJS.ProcessEnv = process.env): Promise<CordonHost> {
  const paths = resolvePaths(env);
  const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  const host = new CordonHost(paths, version);
  const packages = findPluginPackages(HOST_ROOT, paths.dataDir, (what, error) => host.log.warn('plugin package skipped', { what, error: String(error) }));
  await host.applyPlugins(await collectFromPackages(packages));
  return host;
}
