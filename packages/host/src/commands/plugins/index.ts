import type { Command } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { catchCommandError, logShownJson } from '../../cli/command-error.js';
import { terminalText } from '../../output/terminal.js';

// Typed as oclif's base class: the plugin's own class type lives in a path its package does not export.
const OclifPlugins = commands.plugins as unknown as typeof Command & { prototype: { run(): Promise<unknown>; formatPlugin(plugin: ListedPlugin): string } };

/** What oclif's listing reads of a plugin to show it. */
interface ListedPlugin {
  readonly name: string;
  readonly version: string;
  readonly type: string;
  readonly root?: string;
  readonly tag?: string;
}

/** One installed plugin as `cordon plugins --json` prints it. */
export interface PluginListing {
  readonly name: string;
  readonly version: string;
  /** `core` (ships with cordon), `user` (`plugins install`), `link` (`plugins link`), `jit`. */
  readonly type: string;
  /** The package's directory. */
  readonly root?: string;
  /** The commands it adds, as typed (`pcodx show`). */
  readonly commands: readonly string[];
}

/**
 * `cordon plugins`: oclif's listing, except that `--json` prints what a user or a script wants
 * to know of each plugin (name, version, type, directory, commands) instead of oclif's internal
 * plugin objects (about 270 KB of manifests, hooks and options). The root plugin's command wins
 * over `@oclif/plugin-plugins`' one of the same id (oclif's `determinePriority`).
 */
export default class Plugins extends OclifPlugins {
  static override summary = 'List installed plugins';

  override async run(): Promise<PluginListing[]> {
    const listed = (await OclifPlugins.prototype.run.call(this)) as Array<{ name: string; version: string; type: string; root?: string; commandIDs?: string[] }>;
    const separator = this.config.topicSeparator;
    // A command id is listed under the plugin whose command runs, once: cordon's own `plugins`
    // and `plugins install` replace oclif's, which still declares them.
    const runs = (plugin: string, id: string) => (this.config.findCommand(id)?.pluginName ?? plugin) === plugin;
    return listed.map((p) => ({
      name: p.name,
      version: p.version,
      type: p.type,
      ...(p.root ? { root: p.root } : {}),
      commands: (p.commandIDs ?? []).filter((id) => runs(p.name, id)).map((id) => id.replaceAll(':', separator)).sort(),
    }));
  }

  /**
   * oclif's line for one plugin, its name, version, tag and directory escaped for a terminal
   * (output/terminal.ts): a linked plugin's directory may hold an escape sequence. oclif's own
   * colours around them stay as they are.
   */
  formatPlugin(plugin: ListedPlugin): string {
    const shown = (text: string | undefined) => (text === undefined ? undefined : terminalText(text));
    return OclifPlugins.prototype.formatPlugin.call(this, { ...plugin, name: shown(plugin.name)!, version: shown(plugin.version)!, root: shown(plugin.root), tag: shown(plugin.tag) });
  }

  /** Parse errors as every cordon command reports them, `--json` too (cli/command-error.ts). */
  /** `--json` as every cordon command prints it (cli/command-error.ts `logShownJson`): what a plugin's package.json says is escaped there too. */
  override logJson(json: unknown): void {
    logShownJson(json);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    return catchCommandError(this, error, () => super.catch(error));
  }
}
