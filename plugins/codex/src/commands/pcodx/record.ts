import { Flags } from '@oclif/core';
import type { LedgerRole } from '@cordon/plugin-api';
import { jsonFlag, PcodxCommand, textFlags } from '../../pcodx/command.js';
import { existsSync } from 'node:fs';
import { record, TOOL_FIRST } from '../../pcodx/actions.js';
import { PcodxUsageError } from '../../pcodx/errors.js';
import { hostApi } from '../../pcodx/host-api.js';
import { readTextInput } from '../../pcodx/text-input.js';

export default class PcodxRecord extends PcodxCommand {
  static override summary = 'Record one message in the session; print session_id=, message_id= and visible_ids=';
  static override examples = ['<%= config.bin %> <%= command.id %> --role assistant --text "done"', 'cat notes.md | <%= config.bin %> <%= command.id %> --role user --text-file -'];
  static override flags = {
    ...jsonFlag,
    role: Flags.string({ summary: 'Who said it.', options: ['system', 'developer', 'user', 'assistant', 'tool'], required: true }),
    ...textFlags,
    source: Flags.string({ summary: 'Free text saying where the message came from.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxRecord);
    const sink = await this.sink(flags.json);
    const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: true, stdinAllowed: true });
    // No ledger yet means no session and no call for a tool result: refused before one is created.
    if (flags.role === 'tool' && !existsSync((await hostApi()).services.ledger.resolvePath({ db: flags.db }))) throw new PcodxUsageError(TOOL_FIRST);
    await this.withLedger(flags.db, (ledger) => record(ledger, { ...flags, role: flags.role as LedgerRole, text: input!.text }, sink), true, flags.session);
    await this.printJson();
  }
}
