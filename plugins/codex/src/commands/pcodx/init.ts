import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { init } from '../../pcodx/actions.js';

export default class PcodxInit extends PcodxCommand {
  static override summary = 'Open (creating if needed) the ledger and a session; print session_id= and db_path=';
  static override description = 'A missing ledger is created, with any missing directories above it (as `git init DIR` makes DIR): `--db a/b/c.sqlite` makes a/ and a/b/ too.';
  static override flags = { ...jsonFlag };
  static override examples = ['<%= config.bin %> <%= command.id %> --session demo'];

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxInit);
    const sink = await this.sink(flags.json);
    await this.withLedger(flags.db, (ledger) => init(ledger, flags, sink), true, flags.session);
    await this.printJson();
  }
}
