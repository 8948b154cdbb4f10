import type { Command } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { catchCommandError } from '../../cli/command-error.js';
import { notInstalledError, notInstalledName, resolvePluginArgv } from '../../plugins/plugin-names.js';

// Typed as oclif's base class: the plugin's own class type lives in a path its package does not export.
const OclifUninstall = commands['plugins:uninstall'] as unknown as typeof Command & { prototype: { run(): Promise<unknown> } };

/**
 * `cordon plugins uninstall PLUGIN…` (and its aliases `plugins unlink`, `plugins remove`):
 * oclif's command (same arguments and flags), except that a first-party short name names its
 * package as `plugins install` and `plugins inspect` read it (`charts` is `@cordon/charts`:
 * plugins/plugin-names.ts), where oclif's own said `charts is not installed` of a plugin it
 * listed, and that its errors read as cordon's do (cli/command-error.ts). The root plugin's
 * command wins over `@oclif/plugin-plugins`' one of the same id.
 */
export default class PluginsUninstall extends OclifUninstall {
  override async run(): Promise<unknown> {
    this.argv = resolvePluginArgv(this.argv, this.config);
    try {
      return await OclifUninstall.prototype.run.call(this);
    } catch (error) {
      // oclif's `<name> is not installed` names it raw (`a b is not installed`).
      const missing = notInstalledName(error, ' is not installed');
      if (missing !== undefined) throw notInstalledError(missing, this.config.bin);
      throw error;
    }
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    return catchCommandError(this, error, () => super.catch(error));
  }
}
