import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { linesOut } from '../../pcodx/output.js';

export default class PcodxSessions extends PcodxCommand {
  static override summary = 'Print the names of the sessions in the ledger, one per line, the last-written first';
  static override flags = { ...jsonFlag };
  static override examples = ['<%= config.bin %> <%= command.id %> --db ./pcodx.sqlite3'];

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxSessions);
    const sink = await this.sink(flags.json);
    // Reads only: a missing ledger is refused, not created; --session selects nothing here.
    await this.withExistingLedger(
      flags.db,
      async (ledger) => {
        sink.listed?.();
        return linesOut(sink, (await ledger.sessions()).map((s) => s.id));
      },
      undefined,
    );
    await this.printJson();
  }
}
