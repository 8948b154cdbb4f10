import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { runIds } from '../../pcodx/read-commands.js';
import { hostApi } from '../../pcodx/host-api.js';

export default class PcodxIds extends PcodxCommand {
  static override summary = 'Print session_id= and then the visible ids, one per line';
  static override flags = { ...jsonFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxIds);
    const sink = await this.sink(flags.json);
    await runIds(hostApi, flags, sink);
    await this.printJson();
  }
}
