import { Command, loadHelpClass, type Interfaces } from '@oclif/core';
import { commandOutput } from '../../pcodx/command-output.js';
import { terminalEscape } from '../../pcodx/command.js';
import { PcodxUsageError } from '../../pcodx/errors.js';
import { hostClosestName } from '../../pcodx/host-api.js';
import { splitLeadingFlags } from '../../pcodx/leading-flags.js';

/**
 * The pcodx command a user most likely meant by `typed` (`recrod` → `record`), among the visible
 * `pcodx:*` commands and their aliases, or undefined: the host's own choice of a typo's meaning,
 * lent as `api.services.names.closest`, so that it reads as `cordon chek` does ("Did you mean
 * `cordon check`?"). A host that lends none (older than this plugin), or no host api at all,
 * gives no suggestion.
 */
async function meantCommand(typed: string, config: Interfaces.Config): Promise<string | undefined> {
  const names: string[] = [];
  for (const command of config.commands) {
    if (command.hidden) continue;
    for (const id of [command.id, ...command.aliases]) {
      const [topic, name, deeper] = id.split(':');
      if (topic === 'pcodx' && name !== undefined && deeper === undefined) names.push(name);
    }
  }
  return (await hostClosestName())?.(typed, names);
}

export default class Pcodx extends Command {
  static override summary = 'Partial compaction for Codex: a ledger of the conversation in which chosen ranges are replaced by summaries';
  static override description = 'Global flags may come before the command, as the reference pcodx writes them: `pcodx --db D --session S init` is `pcodx init --db D --session S`.';
  static override strict = false;
  static override usage = '<%= command.id %> [--db PATH] [--session NAME] [--cwd DIR] COMMAND [FLAGS]';
  static override examples = ['<%= config.bin %> pcodx --db ./pcodx.sqlite3 --session demo init', '<%= config.bin %> pcodx show --session demo'];

  async run(): Promise<void> {
    const split = splitLeadingFlags(this.argv);
    if (split.kind === 'help') {
      const Help = await loadHelpClass(this.config);
      await new Help(this.config).showHelp(['pcodx']);
      return;
    }
    if (split.kind === 'error') {
      commandOutput(false, await terminalEscape()).fail(new PcodxUsageError(split.message));
      return;
    }
    const id = `pcodx:${split.command}`;
    if (!this.config.findCommand(id)) {
      const meant = await meantCommand(split.command, this.config);
      const hint = meant === undefined ? '' : ` Did you mean \`${this.config.bin} pcodx ${meant}\`?`;
      commandOutput(false, await terminalEscape()).fail(new PcodxUsageError(`${JSON.stringify(split.command)} is not a pcodx command.${hint} Run \`${this.config.bin} pcodx --help\` for the list.`));
      return;
    }
    await this.config.runCommand(id, split.argv);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    // The one error printer of the pcodx commands (escaped for a terminal as the host's errors are).
    if (!commandOutput(false, await terminalEscape()).fail(error)) return super.catch(error);
    return undefined;
  }
}
