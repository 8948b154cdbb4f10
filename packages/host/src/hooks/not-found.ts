import { Errors, toConfiguredId, type Hook } from '@oclif/core';
import pluginNotFound from '@oclif/plugin-not-found';
import { ERROR_CODES } from '../errors/index.js';
import { closestName } from '../util/closest-name.js';
import { displayPath } from '../envelope/path-text.js';

/** Commands (and topics) first-party plugins add, and the plugin that adds each. */
const PLUGIN_COMMANDS: Readonly<Record<string, string>> = { pcodx: '@cordon/codex', wrap: '@cordon/aider' };

/**
 * oclif `command_not_found` hook. A command a first-party plugin adds names that plugin. On a terminal, @oclif/plugin-not-found asks "Did you mean …?"
 * and runs the suggestion when the user agrees. Everywhere else (scripts, CI, an agent's shell)
 * nobody can answer, so the suggestion is printed instead. Either way an unknown command is bad
 * input: exit 2 with `CORDON_BAD_INPUT`, like every other usage error (the plugin's own exit,
 * 127, is the shell's "command not found" and would read as a missing `cordon`).
 */
const hook: Hook.CommandNotFound = async function (options) {
  const visible = options.config.commands.filter((c) => !c.hidden);
  const ids = [...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases)];
  const typed = toConfiguredId(options.id, options.config);
  if (process.stdin.isTTY && process.stderr.isTTY) {
    try {
      return await pluginNotFound.call(this, options);
    } catch (error) {
      // The plugin's "Run cordon help …" refusal; anything the suggested command threw goes on.
      if ((error as { oclif?: { exit?: number } }).oclif?.exit !== 127) throw error;
    }
  }
  const provider = PLUGIN_COMMANDS[options.id.split(':')[0]!];
  const suggestion = provider ? undefined : closestName(options.id, ids);
  const hint = provider
    ? ` It comes with the ${provider} plugin: \`${options.config.bin} plugins install ${provider.replace('@cordon/', '')}\`.`
    : suggestion
      ? ` Did you mean \`${options.config.bin} ${toConfiguredId(suggestion, options.config)}\`?`
      : '';
  throw new Errors.CLIError(`\`${displayPath(typed)}\` is not a ${options.config.bin} command.${hint} Run \`${options.config.bin} help\` for the list.`, {
    exit: 2,
    code: ERROR_CODES.BAD_INPUT,
  });
};

export default hook;
