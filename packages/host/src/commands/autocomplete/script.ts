import { Args, Command } from '@oclif/core';
import { completionScriptLine, type CompletionShell } from '../../cli/completion-setup.js';

/**
 * `cordon autocomplete script [SHELL]`: the line a shell profile runs to set up completion, as
 * `@oclif/plugin-autocomplete`'s command of the same id prints it, with its paths quoted
 * (cli/completion-setup.ts). The root plugin's command wins over the plugin's (oclif's
 * `determinePriority`). Written raw to stdout: it is a script for a shell, not text for a terminal.
 */
export default class AutocompleteScript extends Command {
  static override hidden = true;
  static override description = 'outputs autocomplete config script for shells';
  static override args = {
    shell: Args.string({ description: 'Shell type', options: ['zsh', 'bash', 'powershell'], required: false }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(AutocompleteScript);
    const shell = (args.shell ?? this.config.shell) as CompletionShell;
    process.stdout.write(`${completionScriptLine(this.config, shell === 'powershell' || shell === 'zsh' ? shell : 'bash')}\n`);
  }
}
