import { Args, Command } from '@oclif/core';
import { PcodxUsageError } from '../../pcodx/errors.js';
import { PROMPT_FRAGMENTS } from '../../pcodx/prompts/fragments.js';
import { isPromptName } from '../../pcodx/prompts/fill.js';

export default class PcodxPrompts extends Command {
  static override summary = 'List the pcodx prompt fragments, or print one as it is (placeholders unfilled)';
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> partial-compact-instruction.md'];
  static override args = { name: Args.string({ description: 'A fragment name from the list.' }) };

  async run(): Promise<void> {
    const { args } = await this.parse(PcodxPrompts);
    if (args.name === undefined) {
      for (const name of Object.keys(PROMPT_FRAGMENTS).sort()) process.stdout.write(`${name}\n`);
      return;
    }
    if (!isPromptName(args.name)) throw new PcodxUsageError(`unknown prompt \`${args.name}\``);
    process.stdout.write(PROMPT_FRAGMENTS[args.name]);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (!(error instanceof PcodxUsageError)) return super.catch(error);
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
    return undefined;
  }
}
