import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Interfaces } from '@oclif/core';
type Config = Interfaces.Config;
import { collectFromPackages, findPluginPackages, type PluginPackage } from '../plugins/discover.js';
import { collectFromOclif } from '../plugins/oclif-register.js';
import { HOT_HOOKS, pluginIndexKey, readPluginIndex, selectForAgent, selectForNeeds, writePluginIndex, type PluginIndex, type PluginNeeds } from '../plugins/plugin-index.js';
import { HOST_ROOT } from '../util/host-root.js';
import { checkPaths, resolvePaths } from '../util/paths.js';
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
  /** The discovery already done by {@link planHostLoad} for the same `env` (it is not repeated). */
  readonly plan?: HostLoadPlan;
}

/** The plugin discovery {@link loadHostDirect} starts with, for callers that look before loading. */
export interface HostLoadPlan {
  readonly paths: ReturnType<typeof resolvePaths>;
  /** The host's version (its package.json). */
  readonly version: string;
  /** Every plugin package found ({@link findPluginPackages}). */
  readonly packages: readonly PluginPackage[];
  /** The plugin-index key of this set; `''` when `CORDON_PLUGIN_INDEX=off`. */
  readonly key: string;
  /** The current plugin index, when one exists for {@link key}. */
  readonly index?: PluginIndex;
  /** Why a package was skipped, for the host's log once it exists. */
  readonly skipped: ReadonlyArray<{ what: string; error: string }>;
}

/**
 * Finds the plugin packages and reads the plugin index (files only, no plugin code runs).
 * `CORDON_PLUGIN_INDEX=off` leaves the index unread. Throws `CORDON_BAD_INPUT` for a directory
 * variable cordon cannot use (util/paths.ts: a relative `CORDON_*_DIR`; a data or cache
 * directory that is a file or cannot be listed and entered, found when reading it failed).
 */
export function planHostLoad(env: NodeJS.ProcessEnv = process.env): HostLoadPlan {
  const paths = resolvePaths(env);
  const hostPackage = JSON.parse(readFileSync(join(HOST_ROOT, 'package.json'), 'utf8')) as { version: string; oclif?: { plugins?: unknown } };
  const version = hostPackage.version;
  const skipped: Array<{ what: string; error: string }> = [];
  let unreadable = false;
  const packages = findPluginPackages(
    HOST_ROOT,
    paths.dataDir,
    (what, error) => {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      unreadable ||= code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM';
      skipped.push({ what, error: String(error) });
    },
    hostPackage,
  );
  const indexed = env.CORDON_PLUGIN_INDEX !== 'off';
  const key = indexed ? pluginIndexKey(version, packages, paths.configDir) : '';
  const index = indexed ? readPluginIndex(paths.cacheDir, key) : undefined;
  // A read that failed below a file or for want of permission, or no current index (never one,
  // when the cache directory is a file or cannot be read): the directories are looked at, and one
  // that is a file or cannot be listed and entered is refused, naming its variable
  // (util/paths.ts checkPaths). Neither happens on the usual call, which pays nothing.
  if (unreadable || (indexed && !index)) checkPaths(env);
  return { paths, version, packages, key, ...(index ? { index } : {}), skipped };
}

/**
 * The packages whose code runs inside the hot path's hooks (`beforeToolCall`, `afterToolCall`)
 * per the plan's plugin index: those that tap one, and those that failed to load last time (their
 * code is unknown). `undefined` when there is no current index (nothing is known).
 */
export function hotTapPackages(plan: HostLoadPlan): string[] | undefined {
  if (!plan.index) return undefined;
  return plan.index.packages.filter((p) => p.failed || p.taps.some((hook) => HOT_HOOKS.includes(hook))).map((p) => p.name);
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
  const { paths, version, packages, key, index, skipped } = options.plan ?? planHostLoad(env);
  const fresh = (): CordonHost => new CordonHost(paths, version);
  let host = fresh();
  for (const { what, error } of skipped) host.log.warn('plugin package skipped', { what, error });
  const indexed = env.CORDON_PLUGIN_INDEX !== 'off';
  if (index && options.needs !== undefined && options.agent === undefined) {
    await host.applyPlugins(await collectFromPackages(selectForNeeds(index, packages, options.needs)));
    return host;
  }
  if (index && options.agent !== undefined) {
    const wanted = selectForAgent(index, packages, options.agent);
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
