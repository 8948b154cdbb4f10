import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HookName } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { writeFileAtomic } from '../io/atomic-write.js';
import { ensurePrivateDir } from '../io/private-dir.js';
import { statStamp } from '../io/stat-direct.js';
import { readRegularFile } from '../io/safe-read.js';
import type { PluginPackage } from './discover.js';
import { registerTargets } from './hook-targets.js';

/**
 * The hooks the hot path fires (`src/hot/handle.ts`): a plugin tapping one of them is loaded for
 * every tool call, whatever agent it is for.
 */
export const HOT_HOOKS: readonly HookName[] = Object.freeze(['beforeToolCall', 'afterToolCall']);

/** What one plugin package contributed the last time every plugin was applied. */
export interface IndexedPackage {
  /** Package name (`PluginPackage.name`). */
  readonly name: string;
  /** Dialect names it registered. */
  readonly dialects: readonly string[];
  /** Sampler names it registered. */
  readonly samplers: readonly string[];
  /** Hooks it tapped. */
  readonly taps: readonly HookName[];
  /** It failed to register or apply (it is always loaded, so the failure keeps being logged). */
  readonly failed: boolean;
}

/**
 * `<cacheDir>/plugin-index.json`: which package registers which dialect and taps which hook,
 * learnt from a full load and valid while {@link pluginIndexKey} is unchanged. It lets the hot
 * path load only the dialect it needs (docs/ARCHITECTURE.md "The hot paths"), as oclif's manifest lets oclif
 * skip loading every command.
 */
export interface PluginIndex {
  readonly v: typeof PLUGIN_INDEX_VERSION;
  /** {@link pluginIndexKey} of the plugin set it describes. */
  readonly key: string;
  readonly packages: readonly IndexedPackage[];
}

const PLUGIN_INDEX_VERSION = 2;
const FILE = 'plugin-index.json';

/**
 * The settings files a package's registration reads: `cordon.registerReads` in its package.json,
 * names relative to the config directory (e.g. `["control.json"]` for @cordon/cgroup-linux, whose
 * `beforeToolCall` tap exists only while `control.json` guards an agent). Anything but a plain
 * file name is ignored.
 */
export function registerReads(pkg: PluginPackage): string[] {
  const reads = pkg.pjson.cordon?.registerReads;
  if (!Array.isArray(reads)) return [];
  return reads.filter((r): r is string => typeof r === 'string' && /^[\w.-]+$/.test(r) && r !== '.' && r !== '..');
}

/**
 * The identity of a plugin set: the host version, then for each package (in discovery order) its
 * name, root, and the size and mtime of its package.json, of every `cordon:register` module and of
 * every settings file its registration reads ({@link registerReads}, under `configDir`).
 * Installing, linking, unlinking, upgrading or rebuilding a plugin's registration changes it, and
 * so does editing such a settings file by hand (a guard switched on by writing `control.json`).
 * A file that cannot be stat'ed contributes `missing`, so the key still changes when it appears.
 */
export function pluginIndexKey(hostVersion: string, packages: readonly PluginPackage[], configDir?: string): string {
  // The size and mtime of a file (io/stat-direct.ts statStamp: no fs.Stats built, this runs for
  // every file of every plugin on every hook call and `control run`).
  const stamp = statStamp;
  const parts = [`host@${hostVersion}`];
  for (const pkg of packages) {
    parts.push(pkg.name, pkg.root, stamp(join(pkg.root, 'package.json')));
    for (const { target } of registerTargets(pkg.pjson)) parts.push(target, stamp(resolve(pkg.root, target)));
    if (configDir !== undefined) for (const name of registerReads(pkg)) parts.push(`config:${name}`, stamp(join(configDir, name)));
  }
  return parts.join('\n');
}

/** The largest index read, bytes (a few KB for dozens of plugins). */
const PLUGIN_INDEX_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The index in `cacheDir` when it exists, parses, carries `key` and has the shape of a
 * {@link PluginIndex} in every field ({@link isIndexedPackage}); otherwise `undefined`, and the
 * caller loads every plugin and writes the index again. Read non-blocking, regular files only
 * (io/safe-read.ts): a FIFO in its place held every hook call, check and `control run` until
 * something wrote to it; now it reads as no index.
 */
export function readPluginIndex(cacheDir: string, key: string): PluginIndex | undefined {
  try {
    const index = JSON.parse(readRegularFile(join(cacheDir, FILE), { maxBytes: PLUGIN_INDEX_MAX_BYTES, links: 'always' }).toString('utf8')) as PluginIndex;
    return index?.v === PLUGIN_INDEX_VERSION && index.key === key && Array.isArray(index.packages) && index.packages.every(isIndexedPackage) ? index : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `value` is an {@link IndexedPackage} in every field. An entry of another shape (`"taps":
 * "enforce"`, `null`) in an index whose key still matches made every hook call fail with a
 * TypeError until the plugins changed: the agent's calls went undecided and unrecorded.
 */
function isIndexedPackage(value: unknown): value is IndexedPackage {
  if (value === null || typeof value !== 'object') return false;
  const entry = value as Record<string, unknown>;
  const strings = (list: unknown): boolean => Array.isArray(list) && list.every((item) => typeof item === 'string');
  return typeof entry.name === 'string' && strings(entry.dialects) && strings(entry.samplers) && strings(entry.taps) && typeof entry.failed === 'boolean';
}

/**
 * Writes the index for a host that applied every package of the set (temp file + rename, so a
 * concurrent hook reads the old file or the new one). Returns the error instead of throwing: the
 * index is only a cache.
 */
export function writePluginIndex(cacheDir: string, key: string, host: CordonHost, packages: readonly PluginPackage[]): unknown {
  const entries = packages.map((pkg) => describePackage(host, pkg.name));
  const index: PluginIndex = { v: PLUGIN_INDEX_VERSION, key, packages: entries };
  try {
    ensurePrivateDir(cacheDir);
    writeFileAtomic(join(cacheDir, FILE), JSON.stringify(index, null, 1) + '\n', { mode: 0o600, links: 'replace', durable: false });
    return undefined;
  } catch (error) {
    return error;
  }
}

function describePackage(host: CordonHost, source: string): IndexedPackage {
  const plugins = new Set(host.pluginsOf(source));
  const dialects = host.dialects
    .list()
    .filter((r) => plugins.has(r.plugin))
    .map((r) => r.entry.name);
  const samplers = host.samplers
    .list()
    .filter((r) => plugins.has(r.plugin))
    .map((r) => r.entry.name);
  const taps: HookName[] = [];
  for (const hook of Object.keys(host.hooks) as HookName[]) {
    const list = (host.hooks[hook] as unknown as { taps: Array<{ plugin?: string }> }).taps;
    if (list.some((tap) => tap.plugin !== undefined && plugins.has(tap.plugin))) taps.push(hook);
  }
  const failed = host.failures.some((f) => f.plugin === source || plugins.has(f.plugin));
  return { name: source, dialects, samplers, taps, failed };
}

/** What a command needs from plugins, for {@link selectForNeeds}. */
export interface PluginNeeds {
  /** The only hooks it fires (`cordon check`: `audit`). */
  readonly hooks?: readonly HookName[];
  /** It picks a sampler (the sampler process). */
  readonly samplers?: boolean;
  /** The dialect it uses (`cordon hook --agent <dialect>`). */
  readonly dialect?: string;
}

/**
 * The packages a command needs, per `index`: every one that taps one of `needs.hooks`, that
 * registers a sampler when `needs.samplers`, that registers `needs.dialect`, and every one that
 * failed last time or that the index does not know.
 */
export function selectForNeeds(index: PluginIndex, packages: readonly PluginPackage[], needs: PluginNeeds): PluginPackage[] {
  const byName = new Map(index.packages.map((p) => [p.name, p]));
  const hooks = needs.hooks ?? [];
  return packages.filter((pkg) => {
    const known = byName.get(pkg.name);
    if (!known || known.failed) return true;
    if (known.taps.some((hook) => hooks.includes(hook))) return true;
    if (needs.samplers === true && known.samplers.length > 0) return true;
    return needs.dialect !== undefined && known.dialects.includes(needs.dialect);
  });
}

/**
 * The packages a `cordon hook --agent <agent>` call needs, per `index`: the one that registers the
 * dialect, every one that taps a {@link HOT_HOOKS} hook, and every one that failed last time.
 * `undefined` when the index names no package for the dialect (the caller loads everything).
 */
export function selectForAgent(index: PluginIndex, packages: readonly PluginPackage[], agent: string): PluginPackage[] | undefined {
  if (!index.packages.some((p) => p.dialects.includes(agent))) return undefined;
  return selectForNeeds(index, packages, { hooks: HOT_HOOKS, dialect: agent });
}

/**
 * Removes the index so the next hot run loads every plugin and records it again: for settings
 * that change what a plugin taps without changing its files (`cordon control guard --write`
 * makes @cordon/cgroup-linux tap `beforeToolCall`). A missing index is fine.
 */
export function dropPluginIndex(cacheDir: string): void {
  rmSync(join(cacheDir, FILE), { force: true });
}
