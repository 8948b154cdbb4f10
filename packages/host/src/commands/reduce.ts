import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { reduce } from '../telemetry/reduce/reduce.js';
import { reduceJsonl, reduceReport, reduceSkippedLines, reduceTextLines, type ReduceReport } from '../telemetry/reduce/output.js';

export type { ReduceReport } from '../telemetry/reduce/output.js';

// The plain forms also run without oclif (src/fast/reduce.ts, routed by bin/run.cjs); both print
// through telemetry/reduce/output.ts.
export default class Reduce extends CordonCommand {
  static override summary = 'Pair tool-call markers, join the samples of each call and store the records in SQLite';
  static override description = [
    'Reads <data>/runs/<session>/markers.jsonl and samples.jsonl, pairs each tool_end with the most recent tool_start of the same call key,',
    'joins the samples inside each call window (both ends inclusive) and stores one record per call plus a session summary',
    'in <data>/telemetry.sqlite3 (reducing a session again replaces its rows).',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --session 458959e6-c878-410e-a259-d3141ffa1f15 --json',
    '<%= config.bin %> <%= command.id %> --all --jsonl > calls.jsonl',
  ];

  static override flags = {
    session: Flags.string({ description: 'Reduce this session (agent session id or its directory name); default: the most recently active one', exclusive: ['all'] }),
    all: Flags.boolean({ description: 'Reduce every recorded session; one whose files cannot be read is skipped and named on stderr (in `skipped` with --json)', exclusive: ['session'] }),
    jsonl: Flags.boolean({ description: 'Print one JSON line per tool-call record on stdout instead of the summary' }),
    db: Flags.string({ description: 'Store to write: an SQLite file (created if missing, in a directory that must exist) or a postgres:// URL (default $CORDON_DB, else <data>/telemetry.sqlite3); rows carry $CORDON_MACHINE or the host name', helpValue: 'PATH|URL' }),
  };

  async run(): Promise<ReduceReport> {
    const { flags } = await this.parse(Reduce);
    if (flags.jsonl && this.jsonEnabled()) {
      throw new CordonError(ERROR_CODES.BAD_INPUT, '--jsonl and --json both choose the output; pass one of them', { details: { flags: ['jsonl', 'json'] } });
    }
    const host = await this.host();
    const result = await reduce({ dataDir: host.paths.dataDir, session: flags.session, all: flags.all, db: flags.db });
    if (flags.jsonl) {
      const { stdout, stderr } = reduceJsonl(result);
      for (const line of stdout) process.stdout.write(line);
      for (const line of stderr) process.stderr.write(line);
    } else {
      for (const line of reduceTextLines(result)) this.log(line);
      // Sessions --all went on without (--json holds them in `skipped`).
      if (!this.jsonEnabled()) for (const line of reduceSkippedLines(result)) process.stderr.write(line);
    }
    return reduceReport(result);
  }
}
