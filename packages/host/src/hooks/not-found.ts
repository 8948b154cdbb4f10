import type { Hook } from '@oclif/core';
import pluginNotFound from '@oclif/plugin-not-found';
import { commandSynonym, reportUnknownCommand } from '../cli/unknown-command.js';

/**
 * oclif `command_not_found` hook. A command a first-party plugin adds names that plugin; a
 * well-known synonym (`completion`) names cordon's command (unknown-command.ts). On a terminal, @oclif/plugin-not-found asks "Did you mean …?"
 * and runs the suggestion when the user agrees. Everywhere else (scripts, CI, an agent's shell)
 * nobody can answer, so the suggestion is printed instead. Either way an unknown command is bad
 * input: exit 2 with `CORDON_BAD_INPUT`, like every other usage error (the plugin's own exit,
 * 127, is the shell's "command not found" and would read as a missing `cordon`).
 */
const hook: Hook.CommandNotFound = async function (options) {
  // A synonym (`completion` for `autocomplete`) is no typo the plugin's spelling distance would find.
  // A flag before any command (`cordon --verbose check`) is no typo of a command either.
  if (process.stdin.isTTY && process.stderr.isTTY && !options.id.startsWith('-') && commandSynonym(options.id, options.config) === undefined) {
    try {
      return await pluginNotFound.call(this, options);
    } catch (error) {
      // The plugin's "Run cordon help …" refusal; anything the suggested command threw goes on.
      if ((error as { oclif?: { exit?: number } }).oclif?.exit !== 127) throw error;
    }
  }
  throw reportUnknownCommand(options.id, options.config, options.argv ?? []);
};

export default hook;
