import { PcodxCommand } from '../../pcodx/command.js';
import { messageIds } from '../../pcodx/actions.js';
import { processSink } from '../../pcodx/output.js';

export default class PcodxCurrentSessionMessageIds extends PcodxCommand {
  static override summary = 'Print the visible-ids helper text a model gets to choose compaction ranges';

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxCurrentSessionMessageIds);
    await this.withExistingLedger(flags.db, (ledger) => messageIds(ledger, flags, processSink));
  }
}
