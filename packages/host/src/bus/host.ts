import { endLike } from '../process/end-like.js';
import { PLUGIN_API_VERSION, STAGE, type CordonApi, type CordonPaths, type CordonPlugin, type ChartRendererEntry, type DialectEntry, type ExporterEntry, type HookTable, type Logger, type ProbeEntry, type RunnerEntry, type SamplerEntry, type StartPlace } from '@cordon/plugin-api';
import { matchGlob } from '../envelope/glob.js';
import { directoryProblem } from '../io/directory.js';
import { CordonError, CordonPluginError, ERROR_CODES, wrapPluginError } from '../errors/index.js';
import { registerBuiltinSamplers } from '../telemetry/sampler/builtin.js';
import { createFileLogger } from '../util/log.js';
import { redactArgv, redactText } from '../output/redact.js';
import { closestName } from '../util/closest-name.js';
import { TERMINAL_SERVICE } from '../output/terminal-service.js';
import { createFacades, removeTaps } from './facade.js';
import { createHookTable } from './hook-table.js';
import { Registry } from './registry.js';
import { hostServices } from './load-services.js';
import type { HostServices } from './services.js';
import { installTiming } from './timing.js';

/** `api.services.files`, the same frozen object for every plugin. */
const FILES = Object.freeze({ directoryProblem });

/** `api.services.redact`: the logger's own redaction (output/redact.ts), already in every bundle that logs. */
const REDACT = Object.freeze({ command: redactText, argv: redactArgv });

/** `api.services.names`: the typo suggestion of the host's own commands, flags and registries (util/closest-name.ts, which loads its distance only when called). */
const NAMES = Object.freeze({ closest: closestName });

/** `api.services.terminal`: the host's escaping of text printed on a terminal (output/terminal.ts). */

/** A descriptor as collected from one plugin package, before it is applied. */
export interface CollectedPlugin {
  /** The package that returned it (e.g. `@cordon/codex`), for error messages. */
  readonly source: string;
  /** What its `cordon:register` hook returned. */
  readonly descriptor?: unknown;
  /** What its `cordon:register` hook threw (or why its module did not load) instead. */
  readonly error?: unknown;
}

/**
 * The plugin host: the hook table, the registries and the per-plugin api. One per process;
 * created by the oclif `init` hook for commands and by the hot path for `cordon hook`.
 */
export class CordonHost {
  /** The callable hooks (the host fires them; plugins only see facades). */
  readonly hooks: HookTable = createHookTable();
  readonly dialects = new Registry<DialectEntry>('dialects', 'agent');
  readonly runners = new Registry<RunnerEntry>('runners', 'headless agent runner');
  readonly samplers = new Registry<SamplerEntry>('samplers', 'process-tree sampler');
  readonly probes = new Registry<ProbeEntry>('probes', 'capability probe');
  readonly exporters = new Registry<ExporterEntry>('exporters', 'session exporter');
  readonly charts = new Registry<ChartRendererEntry>('charts', 'chart renderer');
  /** Plugins applied successfully, in apply order. */
  readonly applied: string[] = [];
  /** Plugins that failed to register or apply; the rest of the host keeps working. */
  readonly failures: CordonPluginError[] = [];
  /** Package that returned each applied or attempted plugin descriptor: plugin name → package name. */
  readonly #sources = new Map<string, string>();
  /** Plugins whose `apply` failed: their taps and registrations were removed, and later ones are ignored. */
  readonly #withdrawn = new Set<string>();
  readonly log: Logger;

  constructor(readonly paths: CordonPaths, readonly version: string) {
    this.log = createFileLogger(paths.dataDir, 'host');
    installTiming(this.hooks, this.log);
    registerBuiltinSamplers(this.samplers);
  }

  /** The api handed to `plugin`: tap-only facades, register-only registries, a scoped logger. */
  apiFor(plugin: string): CordonApi {
    const withdrawn = () => this.#withdrawn.has(plugin);
    // Built on first use: only command plugins call them (./load-services.ts).
    let built: HostServices | undefined;
    const services = (): HostServices => (built ??= hostServices()(this.hooks, this.paths.dataDir));
    return Object.freeze({
      hostVersion: this.version,
      plugin,
      stage: STAGE,
      hooks: createFacades(this.hooks, plugin, withdrawn),
      dialects: this.dialects.registrarFor(plugin, withdrawn),
      runners: this.runners.registrarFor(plugin, withdrawn),
      samplers: this.samplers.registrarFor(plugin, withdrawn),
      probes: this.probes.registrarFor(plugin, withdrawn),
      exporters: this.exporters.registrarFor(plugin, withdrawn),
      charts: this.charts.registrarFor(plugin, withdrawn),
      log: createFileLogger(this.paths.dataDir, plugin),
      paths: this.paths,
      services: Object.freeze({
        matchGlob,
        get ledger() {
          return services().ledger;
        },
        get telemetry() {
          return services().telemetry;
        },
        // From the services' module too: only `cordon wrap` asks, and the hook's bundle stays without it.
        process: Object.freeze({ endLike, describeStartFailure: (file: string, error: unknown, where?: StartPlace) => services().describeStartFailure(file, error, where), startProblem: (file: string, where?: StartPlace) => services().startProblem(file, where) }),
        // stateDirProblem from the services' module too: only pcodx asks.
        files: Object.freeze({ ...FILES, stateDirProblem: (path: string) => services().stateDirProblem(path) }),
        redact: REDACT,
        names: NAMES,
        terminal: TERMINAL_SERVICE,
        // From the services' module too: the hook's bundle stays without the parse-error wording.
        usage: Object.freeze({ message: (error: Error, command: string) => services().usageMessage(error, command) }),
      }),
    });
  }

  /**
   * Validates the collected descriptors, sorts them by plugin name and applies them one after
   * another. A plugin whose descriptor is invalid or whose `apply` throws is recorded in
   * {@link failures} (as `CordonPluginError` with hook `register`) and contributes nothing: the
   * taps and registrations it made before throwing are removed, and later ones ignored.
   */
  async applyPlugins(collected: readonly CollectedPlugin[]): Promise<void> {
    const valid: CordonPlugin[] = [];
    for (const { source, descriptor, error } of collected) {
      if (error !== undefined) {
        this.fail(wrapPluginError(source, 'register', error));
        continue;
      }
      const d = descriptor as Partial<CordonPlugin> | undefined;
      if (!d || typeof d.name !== 'string' || d.name === '' || typeof d.apply !== 'function') {
        this.fail(new CordonPluginError(source, 'register', new CordonError(ERROR_CODES.PLUGIN_INVALID, 'its cordon:register hook did not return definePlugin({name, apply})')));
        continue;
      }
      if (d.apiVersion !== undefined && d.apiVersion !== PLUGIN_API_VERSION) {
        const message = `it was built for plugin API version ${String(d.apiVersion)}, and this cordon (${this.version}) provides version ${PLUGIN_API_VERSION}; install a release of ${source} made for this cordon, or a cordon that matches it`;
        this.fail(new CordonPluginError(d.name, 'register', new CordonError(ERROR_CODES.PLUGIN_INCOMPATIBLE, message, { details: { plugin: d.name, package: source, api_version: d.apiVersion, host_api_version: PLUGIN_API_VERSION } })));
        continue;
      }
      valid.push(d as CordonPlugin);
      if (!this.#sources.has(d.name)) this.#sources.set(d.name, source);
    }
    valid.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const plugin of valid) {
      if (this.applied.includes(plugin.name)) {
        this.fail(new CordonPluginError(plugin.name, 'register', new CordonError(ERROR_CODES.REGISTRY_DUPLICATE, 'another plugin with this name is applied already')));
        continue;
      }
      try {
        await plugin.apply(this.apiFor(plugin.name));
        this.applied.push(plugin.name);
      } catch (error) {
        this.#withdraw(plugin.name);
        this.fail(wrapPluginError(plugin.name, 'register', error));
      }
    }
  }

  /** Removes what `plugin` contributed and ignores what it contributes later. */
  #withdraw(plugin: string): void {
    this.#withdrawn.add(plugin);
    removeTaps(this.hooks, plugin);
    for (const registry of [this.dialects, this.runners, this.samplers, this.probes, this.exporters, this.charts]) registry.removePlugin(plugin);
  }

  /** Names of the plugins the package `source` returned descriptors for (usually one, its own name). */
  pluginsOf(source: string): string[] {
    return [...this.#sources].filter(([, from]) => from === source).map(([plugin]) => plugin);
  }

  /** Records a plugin failure and logs it. */
  fail(error: CordonPluginError): void {
    this.failures.push(error);
    this.log.error(error.message, { code: error.code, plugin: error.plugin, hook: error.hook });
  }
}
