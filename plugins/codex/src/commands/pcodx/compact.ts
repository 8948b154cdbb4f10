import { Flags } from '@oclif/core';
import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { compact } from '../../pcodx/actions.js';

export default class PcodxCompact extends PcodxCommand {
  static override summary = 'Replace one range of visible entries by a summary';
  static override description =
    'Endpoints are visible ids (msgN, or cmpN to fold an earlier compaction in), inclusive. With --dry-run nothing is stored: the key=value lines go to stderr and the render that would result to stdout.';
  static override examples = ['<%= config.bin %> <%= command.id %> --from msg1 --to msg4 --summary "explored the repo; config loader is src/config.ts"'];
  static override flags = {
    ...jsonFlag,
    from: Flags.string({ summary: 'First visible id of the range.', required: true }),
    to: Flags.string({ summary: 'Last visible id of the range (may equal --from).', required: true }),
    summary: Flags.string({ summary: 'Text that stands in for the range.', required: true }),
    'dry-run': Flags.boolean({ summary: 'Print the resulting render without storing anything.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxCompact);
    const sink = await this.sink(flags.json);
    const ranges = [{ from: flags.from, to: flags.to, summary: flags.summary }];
    await this.withExistingLedger(flags.db, (ledger) => compact(ledger, { ...flags, ranges, many: false, dryRun: flags['dry-run'] }, sink), flags.session);
    await this.printJson();
  }
}
