import { Flags } from '@oclif/core';
import { PcodxCommand } from '../../pcodx/command.js';
import { show } from '../../pcodx/actions.js';
import { processSink } from '../../pcodx/output.js';

export default class PcodxShow extends PcodxCommand {
  static override summary = 'Print the render: each visible entry, then <aboveturn id="…"/>, blocks separated by a blank line';
  static override flags = { roles: Flags.boolean({ summary: 'Put a [role] line above each block.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxShow);
    await this.withExistingLedger(flags.db, (ledger) => show(ledger, flags, processSink));
  }
}
