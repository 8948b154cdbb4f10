import type { HookFacades } from './hooks.js';
import type { ChartRendererEntry } from './registries/chart.js';
import type { DialectEntry } from './registries/dialect.js';
import type { ExporterEntry } from './registries/exporter.js';
import type { ProbeEntry } from './registries/probe.js';
import type { Registrar } from './registries/registrar.js';
import type { RunnerEntry } from './registries/runner.js';
import type { SamplerEntry } from './registries/sampler.js';
import type { CordonServices } from './services.js';
import type { STAGE } from './stage.js';

/** Structured logger; lines go to the debug log (never to the hook's stdout). */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Per-user directories (docs/ARCHITECTURE.md "Data"), always absolute: cordon refuses a relative
 * `CORDON_*_DIR` and ignores a relative `XDG_*_HOME`, as the XDG Base Directory specification says.
 */
export interface CordonPaths {
  /** `$CORDON_DATA_DIR`, else `$XDG_DATA_HOME/cordon`, else the platform default. */
  readonly dataDir: string;
  /** `$CORDON_CONFIG_DIR`, else `$XDG_CONFIG_HOME/cordon`, else the platform default. */
  readonly configDir: string;
  /** `$CORDON_CACHE_DIR`, else `$XDG_CACHE_HOME/cordon`, else the platform default. */
  readonly cacheDir: string;
}

/** Everything a plugin receives at apply time. */
export interface CordonApi {
  /** Version of the running host. */
  readonly hostVersion: string;
  /** Name of the plugin this api was handed to (stamped on its errors and timings). */
  readonly plugin: string;
  /** The {@link STAGE} constants, lent at runtime so plugins need no runtime import. */
  readonly stage: typeof STAGE;
  /** Tap-only hook facades. */
  readonly hooks: HookFacades;
  /** Agent dialects, keyed by agent name. */
  readonly dialects: Registrar<DialectEntry>;
  /** Headless agent launchers, keyed by agent name. */
  readonly runners: Registrar<RunnerEntry>;
  /** Process-tree samplers, keyed by name and chosen by platform. */
  readonly samplers: Registrar<SamplerEntry>;
  /** Capability probes for `cordon control probe`. */
  readonly probes: Registrar<ProbeEntry>;
  /** Session exporters for `cordon export`, keyed by format (`otlp`). */
  readonly exporters: Registrar<ExporterEntry>;
  /** SVG renderers for the charts of `cordon analyze --format html`. */
  readonly charts: Registrar<ChartRendererEntry>;
  /** Logger whose lines carry the plugin name. */
  readonly log: Logger;
  /** Per-user directories. */
  readonly paths: CordonPaths;
  /** Host libraries lent to plugins. */
  readonly services: CordonServices;
}

/**
 * The plugin contract's version: raised on every incompatible change of {@link CordonApi}, the
 * hook table, the registries or the services. {@link definePlugin} stamps it on a descriptor,
 * and the host refuses a descriptor stamped with another version (error
 * `CORDON_PLUGIN_INCOMPATIBLE`, naming both versions) instead of failing later in a tap.
 */
export const PLUGIN_API_VERSION = 1 as const;

/** A plugin descriptor, returned by a plugin's `cordon:register` oclif hook. */
export interface CordonPlugin {
  /**
   * The {@link PLUGIN_API_VERSION} the plugin was built against; {@link definePlugin} sets it.
   * A descriptor without it is taken as built for the current version.
   */
  readonly apiVersion?: number;
  /** Short plugin name (`codex`, `claude-code`); descriptors are applied sorted by it. */
  readonly name: string;
  /** Registers taps and registry entries. Runs once per process; must not do I/O it can defer. */
  apply(api: CordonApi): void | Promise<void>;
}

/**
 * Types a plugin descriptor and stamps it with the {@link PLUGIN_API_VERSION} of the copy of
 * this package the plugin was built with. Third-party plugins depend on `@cordon/plugin-api` and
 * call this; the first-party ones import types only and write `apiVersion` themselves.
 */
export function definePlugin(plugin: CordonPlugin): CordonPlugin {
  return { ...plugin, apiVersion: plugin.apiVersion ?? PLUGIN_API_VERSION };
}

/**
 * Where the host leaves its api factory: a global-registry symbol on `globalThis`, so every copy
 * of this package (and plugins that do not import it at all) find the same one. oclif re-creates
 * its `Config` for each command, so the config object cannot carry it.
 */
export const CORDON_API = Symbol.for('@cordon/api');

/**
 * Gets the host api from inside a plugin's oclif command: `await cordonApi('codex')`.
 * Throws when the command is not running under the `cordon` host.
 */
export async function cordonApi(plugin: string): Promise<CordonApi> {
  const factory = (globalThis as Record<symbol, unknown>)[CORDON_API];
  if (typeof factory !== 'function') {
    throw new Error(`${plugin}: this command must run inside the cordon host (no host api registered)`);
  }
  return (factory as (plugin: string) => Promise<CordonApi>)(plugin);
}
