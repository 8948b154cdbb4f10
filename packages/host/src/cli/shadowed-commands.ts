import type { Interfaces } from '@oclif/core';

/**
 * cordon replaces some of `@oclif/plugin-plugins`' commands with its own of the same id
 * (`plugins`, `plugins inspect`, `plugins install` with its alias `plugins add`, `plugins link`,
 * `plugins uninstall` with its aliases `plugins unlink` and `plugins remove`: commands/plugins/). oclif runs the root plugin's (its `determinePriority`), yet the replaced
 * ones stay in their plugin's command list, and whatever walks the plugins instead of
 * `config.commands` sees both: oclif's shell completion (`@oclif/plugin-autocomplete` builds its
 * bash, zsh and PowerShell scripts from `config.getPluginsList()`) offered `cordon plugins <TAB>`
 * as `inspect install add link inspect install add link reset …`.
 *
 * Removes from each plugin's `commands` (and `commandIDs`) every command whose id runs another
 * plugin's command, so that each command is listed once, under the plugin whose command runs (as
 * `cordon plugins --json` lists them). What runs does not change: oclif's command table was built
 * before, and building it again from the kept lists gives the same table.
 */
export function dropShadowedCommands(config: Interfaces.Config): void {
  for (const plugin of config.getPluginsList()) {
    const runs = (id: string): boolean => {
      const owner = config.findCommand(id)?.pluginName;
      return owner === undefined || owner === plugin.name;
    };
    if (plugin.commands.every((c) => runs(c.id))) continue;
    plugin.commands = plugin.commands.filter((c) => runs(c.id));
    (plugin as { commandIDs: string[] }).commandIDs = plugin.commandIDs.filter(runs);
  }
}
