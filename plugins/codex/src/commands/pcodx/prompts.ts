import { shownJson } from '@cordon/plugin-api';
import { Args, Command, Flags } from '@oclif/core';
import { reportFailure } from '../../pcodx/command.js';
import { PcodxUsageError } from '../../pcodx/errors.js';
import { PROMPT_FRAGMENTS } from '../../pcodx/prompts/fragments.js';
import { isPromptName } from '../../pcodx/prompts/fill.js';

export default class PcodxPrompts extends Command {
  static override summary = 'List the pcodx prompt fragments, or print one as it is (placeholders unfilled)';
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> partial-compact-instruction.md'];
  static override args = { name: Args.string({ description: 'A fragment name from the list.' }) };
  static override flags = { json: Flags.boolean({ summary: 'Print {"fragments": [names]} or {"name", "text"} as JSON.' }) };

  #json = false;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PcodxPrompts);
    this.#json = flags.json;
    const names = Object.keys(PROMPT_FRAGMENTS).sort();
    if (args.name === undefined) {
      process.stdout.write(flags.json ? `${shownJson({ fragments: names }, 2)}\n` : names.map((n) => `${n}\n`).join(''));
      return;
    }
    if (!isPromptName(args.name)) throw new PcodxUsageError(`unknown prompt \`${args.name}\``);
    process.stdout.write(flags.json ? `${shownJson({ name: args.name, text: PROMPT_FRAGMENTS[args.name] }, 2)}\n` : PROMPT_FRAGMENTS[args.name]);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    // An unknown fragment name is a usage error, printed as every pcodx command prints its errors.
    if (await reportFailure(this, error, { json: this.#json })) return undefined;
    return super.catch(error);
  }
}
