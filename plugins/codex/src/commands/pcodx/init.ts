import { PcodxCommand } from '../../pcodx/command.js';
import { init } from '../../pcodx/actions.js';
import { processSink } from '../../pcodx/output.js';

export default class PcodxInit extends PcodxCommand {
  static override summary = 'Open (creating if needed) the ledger and a session; print session_id= and db_path=';
  static override examples = ['<%= config.bin %> <%= command.id %> --session demo'];

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxInit);
    await this.withLedger(flags.db, (ledger) => init(ledger, flags, processSink), true, flags.session);
  }
}
