import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { messageIds } from '../../pcodx/actions.js';

export default class PcodxCurrentSessionMessageIds extends PcodxCommand {
  static override summary = 'Print the visible-ids helper text a model gets to choose compaction ranges';
  static override flags = { ...jsonFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxCurrentSessionMessageIds);
    const sink = await this.sink(flags.json);
    await this.withExistingLedger(flags.db, (ledger) => messageIds(ledger, flags, sink), flags.session);
    await this.printJson();
  }
}
