import type { LedgerHandle } from '@cordon/plugin-api';
import { Flags } from '@oclif/core';
import { PcodxCommand, textFlags } from '../../pcodx/command.js';
import { checkResumeSelector, resume } from '../../pcodx/actions.js';
import { InteractiveLoop, runLoop } from '../../pcodx/interactive.js';
import { processSink } from '../../pcodx/output.js';
import { readTextInput } from '../../pcodx/text-input.js';

export default class PcodxResume extends PcodxCommand {
  static override summary = 'Reopen an existing session (--session NAME or --last), print its render, then run the interactive loop';
  static override description = 'Never creates a session. An optional --text / --text-file prompt is recorded first; --text-file - is refused because the loop reads stdin.';
  static override examples = ['<%= config.bin %> <%= command.id %> --last', '<%= config.bin %> <%= command.id %> --session demo --text "where were we?"'];
  static override flags = { last: Flags.boolean({ summary: 'The most recently written session.' }), ...textFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxResume);
    // Before the ledger is opened: a refusal writes nothing.
    checkResumeSelector(flags);
    const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: false, stdinAllowed: false });
    const loop = async (ledger: LedgerHandle) => {
      const target = await resume(ledger, { ...flags, text: input?.text }, processSink);
      await runLoop(new InteractiveLoop(ledger, target, processSink), { input: process.stdin, output: process.stdout, tty: process.stdout.isTTY === true });
    };
    await this.withExistingLedger(flags.db, loop, flags.session);
  }
}
