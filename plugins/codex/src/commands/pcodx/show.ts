import { Flags } from '@oclif/core';
import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { runShow } from '../../pcodx/read-commands.js';
import { hostApi } from '../../pcodx/host-api.js';

export default class PcodxShow extends PcodxCommand {
  static override summary = 'Print the render: each visible entry, then <aboveturn id="…"/>, blocks separated by a blank line';
  static override flags = { ...jsonFlag, roles: Flags.boolean({ summary: 'Put a [role] line above each block.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxShow);
    const sink = await this.sink(flags.json);
    await runShow(hostApi, flags, sink);
    await this.printJson();
  }
}
