import { Flags } from '@oclif/core';
import type { LedgerRole } from '@cordon/plugin-api';
import { PcodxCommand, textFlags } from '../../pcodx/command.js';
import { record } from '../../pcodx/actions.js';
import { processSink } from '../../pcodx/output.js';
import { readTextInput } from '../../pcodx/text-input.js';

export default class PcodxRecord extends PcodxCommand {
  static override summary = 'Record one message in the session; print session_id=, message_id= and visible_ids=';
  static override examples = ['<%= config.bin %> <%= command.id %> --role assistant --text "done"', 'cat notes.md | <%= config.bin %> <%= command.id %> --role user --text-file -'];
  static override flags = {
    role: Flags.string({ summary: 'Who said it.', options: ['system', 'developer', 'user', 'assistant', 'tool'], required: true }),
    ...textFlags,
    source: Flags.string({ summary: 'Free text saying where the message came from.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxRecord);
    const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: true, stdinAllowed: true });
    await this.withLedger(flags.db, (ledger) => record(ledger, { ...flags, role: flags.role as LedgerRole, text: input!.text }, processSink));
  }
}
