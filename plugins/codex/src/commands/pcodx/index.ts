import { Command, loadHelpClass } from '@oclif/core';
import { isReportable } from '../../pcodx/errors.js';
import { splitLeadingFlags } from '../../pcodx/leading-flags.js';

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
      process.stderr.write(`error: ${split.message}\n`);
      process.exitCode = 2;
      return;
    }
    const id = `pcodx:${split.command}`;
    if (!this.config.findCommand(id)) {
      process.stderr.write(`error: ${JSON.stringify(split.command)} is not a pcodx command; run \`${this.config.bin} pcodx --help\` for the list\n`);
      process.exitCode = 2;
      return;
    }
    await this.config.runCommand(id, split.argv);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (!isReportable(error)) return super.catch(error);
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
    return undefined;
  }
}
