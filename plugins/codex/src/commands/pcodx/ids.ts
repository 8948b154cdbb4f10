import { PcodxCommand } from '../../pcodx/command.js';
import { ids } from '../../pcodx/actions.js';
import { processSink } from '../../pcodx/output.js';

export default class PcodxIds extends PcodxCommand {
  static override summary = 'Print session_id= and then the visible ids, one per line';

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxIds);
    await this.withExistingLedger(flags.db, (ledger) => ids(ledger, flags, processSink));
  }
}
