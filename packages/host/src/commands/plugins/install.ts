import type { Command } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { catchCommandError } from '../../cli/command-error.js';
import { pluginCommandError } from '../../plugins/command-errors.js';
import { packageNameOf, snapshotPluginSet } from '../../plugins/install-guard.js';
import { pluginPackageName } from '../../plugins/plugin-names.js';

// Typed as oclif's base class: the plugin's own class type lives in a path its package does not export.
const OclifInstall = commands['plugins:install'] as unknown as typeof Command & { prototype: { run(): Promise<unknown> } };

/**
 * `cordon plugins install`: oclif's installer (same arguments and flags), except that a failed
 * install leaves the plugin set as it was. oclif's installer, on failure, uninstalls the name it
 * tried, which also drops a linked plugin of that name; this command saves the data dir's
 * `package.json` and the installed package directories of the names given first, and puts them
 * back when the install throws, and reports the failure as cordon's errors read
 * (`CORDON_PLUGIN_INSTALL`; for a first-party plugin the registry lacks, the command that adds it
 * here). The root plugin's command wins over `@oclif/plugin-plugins`' one of the same id (oclif's
 * `determinePriority`).
 */
export default class PluginsInstall extends OclifInstall {
  override async run(): Promise<void> {
    // A usage mistake is bad input, refused before anything is saved (oclif's run parses again).
    await this.parse(OclifInstall);
    // A first-party short name (`codex`) is its package (`@cordon/codex`), as every plugins
    // subcommand reads it (plugins/plugin-names.ts).
    const names = this.argv.filter((a) => !a.startsWith('-')).flatMap((a) => packageNameOf(pluginPackageName(a, this.config)) ?? []);
    const snapshot = snapshotPluginSet(this.config.dataDir, names);
    try {
      await OclifInstall.prototype.run.call(this);
    } catch (error) {
      snapshot.restore();
      throw pluginCommandError(error, names);
    }
    snapshot.discard();
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    return catchCommandError(this, error, () => super.catch(error));
  }
}
