import { Flags } from '@oclif/core';
import { jsonFlag, PcodxCommand } from '../../pcodx/command.js';
import { compact } from '../../pcodx/actions.js';
import { parseRangeSpec } from '../../pcodx/range-spec.js';

export default class PcodxCompactMany extends PcodxCommand {
  static override summary = 'Replace several ranges by summaries in one transaction: all of them or none';
  static override description = 'Each --range is FROM..TO=SUMMARY, split at the first = and then the first .. (summaries may contain both).';
  static override examples = ['<%= config.bin %> <%= command.id %> --range "msg1..msg4=set-up done" --range "msg7..msg9=tests pass"'];
  static override flags = {
    ...jsonFlag,
    range: Flags.string({ summary: 'FROM..TO=SUMMARY; repeat for more ranges.', multiple: true, required: true }),
    'dry-run': Flags.boolean({ summary: 'Print the resulting render without storing anything.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxCompactMany);
    const sink = await this.sink(flags.json);
    const ranges = flags.range.map(parseRangeSpec);
    await this.withExistingLedger(flags.db, (ledger) => compact(ledger, { ...flags, ranges, many: true, dryRun: flags['dry-run'] }, sink), flags.session);
    await this.printJson();
  }
}
