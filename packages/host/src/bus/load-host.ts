import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Interfaces } from '@oclif/core';
type Config = Interfaces.Config;
import { collectFromPackages, findPluginPackages } from '../plugins/discover.js';
import { collectFromOclif } from '../plugins/oclif-register.js';
import { pluginIndexKey, readPluginIndex, selectForAgent, selectForNeeds, writePluginIndex, type PluginIndex, type PluginNeeds } from '../plugins/plugin-index.js';
import { HOST_ROOT } from '../util/host-root.js';
import { resolvePaths } from '../util/paths.js';
import { CordonHost } from './host.js';

export { HOST_ROOT };

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

/** Options of {@link loadHostDirect}. */
export interface LoadHostDirectOptions {
  /**
   * The agent of a `cordon hook --agent <agent>` call: with a current plugin index, only the
   * packages that call needs are loaded ({@link selectForAgent}); without, every package.
   */
  readonly agent?: string;
  /**
   * What a caller that needs no dialect uses (`cordon check`: `{hooks: ['audit']}`; the sampler
   * process: `{samplers: true}`): with a current plugin index only those packages are loaded.
   */
  readonly needs?: PluginNeeds;
}

/**
 * The host without oclif, for the hot path and for tools: discovers plugins from the host's
 * package.json and `<dataDir>/package.json` exactly as oclif would, and applies them.
 *
 * With `agent`, the plugin index in the cache directory (`plugin-index.json`, see
 * {@link PluginIndex}) narrows the load to the dialect's package and the packages tapping the
 * hooks the hot path fires; when that load does not register the dialect after all (a stale
 * index), everything is loaded afresh. With `needs` instead, only the packages serving them
 * ({@link selectForNeeds}). Every full load rewrites the index.
 * `CORDON_PLUGIN_INDEX=off` always loads everything and leaves the index alone.
 */
export async function loadHostDirect(env: NodeJS.ProcessEnv = process.env, options: LoadHostDirectOptions = {}): Promise<CordonHost> {
  const paths = resolvePaths(env);
  const version = (JSON.parse(readFileSync(join(HOST_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const fresh = (): CordonHost => new CordonHost(paths, version);
  let host = fresh();
  const packages = findPluginPackages(HOST_ROOT, paths.dataDir, (what, error) => host.log.warn('plugin package skipped', { what, error: String(error) }));
  const indexed = env.CORDON_PLUGIN_INDEX !== 'off';
  const key = indexed ? pluginIndexKey(version, packages) : '';
  if (indexed && options.needs !== undefined && options.agent === undefined) {
    const index = readPluginIndex(paths.cacheDir, key);
    if (index) {
      await host.applyPlugins(await collectFromPackages(selectForNeeds(index, packages, options.needs)));
      return host;
    }
  }
  if (indexed && options.agent !== undefined) {
    const index = readPluginIndex(paths.cacheDir, key);
    const wanted = index && selectForAgent(index, packages, options.agent);
    if (wanted) {
      await host.applyPlugins(await collectFromPackages(wanted));
      if (host.dialects.get(options.agent)) return host;
      host.log.debug('plugin index is stale; loading every plugin', { agent: options.agent });
      host = fresh();
    }
  }
  await host.applyPlugins(await collectFromPackages(packages));
  if (indexed) {
    const error = writePluginIndex(paths.cacheDir, key, host, packages);
    if (error) host.log.debug('plugin index not written', { error: String(error) });
  }
  return host;
}
