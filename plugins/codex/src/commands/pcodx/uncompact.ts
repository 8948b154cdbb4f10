import { Args } from '@oclif/core';
import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { uncompact } from '../../pcodx/actions.js';

export default class PcodxUncompact extends PcodxCommand {
  static override summary = 'Undo a compaction: what it covered is visible again (its id is never reused)';
  static override flags = { ...jsonFlag };
  static override description = 'Compactions that the undone one had folded in become active again.';
  static override examples = ['<%= config.bin %> <%= command.id %> cmp2'];
  static override args = { compaction: Args.string({ description: 'An active compaction id (cmpN).', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PcodxUncompact);
    const sink = await this.sink(flags.json);
    await this.withExistingLedger(flags.db, (ledger) => uncompact(ledger, { ...flags, compactionId: args.compaction }, sink), flags.session);
    await this.printJson();
  }
}
