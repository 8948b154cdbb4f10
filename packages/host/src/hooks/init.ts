import type { Hook } from '@oclif/core';
import { CORDON_API } from '@cordon/plugin-api';
import { dropShadowedCommands } from '../cli/shadowed-commands.js';

/**
 * oclif `init` hook: leaves a lazy host-api factory at `globalThis[CORDON_API]` so plugin
 * commands can call `cordonApi(name)` without importing host code. Nothing loads until asked:
 * the host's module graph (the bus, the plugins, the services: about 80 modules) is imported on
 * the first call, not by every command oclif runs (`cordon --version`, `status`, `help` never ask).
 * Also drops the oclif commands cordon's own replace from their plugin's command list
 * (cli/shadowed-commands.ts), so that shell completion offers each command once, and refuses a
 * command that runs another after `--` when that other came without the `--`, before help or
 * parsing (cli/command-after-dashes.ts).
 */
const hook: Hook.Init = async function ({ config, id, argv }) {
  dropShadowedCommands(config);
  // `cordon control run ls --verbose`: a command to run given without the `--` before it is
  // refused before oclif parses it (cli/command-after-dashes.ts; the manifest keeps the static
  // `commandAfterDashes`, so only such commands load that module).
  if (id !== undefined && (config.findCommand(id) as { commandAfterDashes?: unknown } | undefined)?.commandAfterDashes === true) {
    const { refuseCommandWithoutDashes } = await import('../cli/command-after-dashes.js');
    const refused = refuseCommandWithoutDashes(id, argv, config);
    if (refused) throw refused;
  }
  Object.defineProperty(globalThis, CORDON_API, {
    configurable: true,
    value: async (plugin: string) => {
      const { loadHost } = await import('../bus/load-host.js');
      return (await loadHost(config)).apiFor(plugin);
    },
  });
};

export default hook;

/** Whether `id` is one of oclif's completion commands (`autocomplete`, `autocomplete create`, `autocomplete script`). */
const isCompletion = (id: string | undefined): boolean => id === 'autocomplete' || id?.startsWith('autocomplete:') === true;

/**
 * oclif `prerun` hook (this module, so no other file loads on every command): before a completion
 * command runs (directly, or `autocomplete create` as the refresh after `plugins install` runs
 * it), the plugins' command lists it reads are made safe to write into shell scripts
 * (cli/completion-safe.ts).
 */
export const prerun: Hook.Prerun = async function ({ Command, config }) {
  if (!isCompletion(Command.id)) return;
  const { makeCompletionSafe } = await import('../cli/completion-safe.js');
  makeCompletionSafe(config);
};

/**
 * oclif `postrun` hook: after `autocomplete` or `autocomplete create` has written the setup files that the line
 * `cordon autocomplete script` prints sources, they are written again with their paths quoted
 * (cli/completion-setup.ts).
 */
export const postrun: Hook.Postrun = async function ({ Command, config }) {
  // `autocomplete` runs `autocomplete create` itself (without the hooks); the refresh after
  // `plugins install` runs it as a command.
  if (Command.id !== 'autocomplete' && Command.id !== 'autocomplete:create') return;
  const { writeCompletionSetup } = await import('../cli/completion-setup.js');
  await writeCompletionSetup(config);
};
