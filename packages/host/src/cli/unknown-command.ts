import { Errors, toConfiguredId, type Interfaces } from '@oclif/core';
import { ERROR_CODES } from '../errors/index.js';
import { closestName } from '../util/closest-name.js';
import { pluginInstallCommand } from '../plugins/install-hint.js';
import { displayPath } from '../envelope/path-text.js';

/** Commands (and topics) first-party plugins add, and the plugin that adds each. */
const PLUGIN_COMMANDS: Readonly<Record<string, string>> = { pcodx: '@cordon/codex', wrap: '@cordon/aider' };

/**
 * The refusal of a command id nobody provides (`id` in oclif's colon form, e.g. `chek` or
 * `pcodx:show`): exit 2 with `CORDON_BAD_INPUT`, naming the plugin that adds a first-party
 * command, else the closest visible command or alias ("Did you mean `cordon check`?"). Used by
 * the `command_not_found` hook (`cordon chek`) and by the help class (`cordon chek -h`,
 * `cordon help chek`), so a typo reads the same everywhere.
 */
export function unknownCommandError(id: string, config: Interfaces.Config): Errors.CLIError {
  const visible = config.commands.filter((c) => !c.hidden);
  const ids = [...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases)];
  const typed = toConfiguredId(id, config);
  const provider = PLUGIN_COMMANDS[id.split(':')[0]!];
  const suggestion = provider ? undefined : closestName(id, ids);
  const hint = provider
    ? ` It comes with the ${provider} plugin: \`${pluginInstallCommand([provider.replace('@cordon/', '')], config.bin)}\`.`
    : suggestion
      ? ` Did you mean \`${config.bin} ${toConfiguredId(suggestion, config)}\`?`
      : '';
  return new Errors.CLIError(`\`${displayPath(typed)}\` is not a ${config.bin} command.${hint} Run \`${config.bin} help\` for the list.`, {
    exit: 2,
    code: ERROR_CODES.BAD_INPUT,
  });
}
