import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { reduce, type SessionSummary } from '../telemetry/reduce/index.js';
import { plural } from '../util/plural.js';
import { cutText } from '@cordon/plugin-api';

/** What `cordon reduce --json` prints. */
export interface ReduceReport {
  /** The telemetry database written. */
  db: string;
  /** One summary per reduced session. */
  sessions: SessionSummary[];
}

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
    all: Flags.boolean({ description: 'Reduce every recorded session', exclusive: ['session'] }),
    jsonl: Flags.boolean({ description: 'Print one JSON line per tool-call record on stdout instead of the summary' }),
    db: Flags.string({ description: 'Store to write: an SQLite file or a postgres:// URL (default $CORDON_DB, else <data>/telemetry.sqlite3); rows carry $CORDON_MACHINE or the host name', helpValue: 'PATH|URL' }),
  };

  async run(): Promise<ReduceReport> {
    const { flags } = await this.parse(Reduce);
    if (flags.jsonl && this.jsonEnabled()) {
      throw new CordonError(ERROR_CODES.BAD_INPUT, '--jsonl and --json both choose the output; pass one of them', { details: { flags: ['jsonl', 'json'] } });
    }
    const host = await this.host();
    const result = await reduce({ dataDir: host.paths.dataDir, session: flags.session, all: flags.all, db: flags.db });
    if (flags.jsonl) {
      for (const s of result.sessions) for (const call of s.calls) process.stdout.write(JSON.stringify(call) + '\n');
    } else {
      for (const { summary: s, calls } of result.sessions) {
        this.log(`session ${s.session_id}${s.agent ? ` (${s.agent})` : ''}: ${plural(s.n_toolcalls, 'call')}, ${plural(s.n_samples, 'sample')} over ${(s.span_ms / 1000).toFixed(1)} s`);
        this.log(
          `  tool time ${(s.tool_time_ms / 1000).toFixed(1)} s${s.tool_time_fraction === null ? '' : ` (${(s.tool_time_fraction * 100).toFixed(1)} % of the sampled span)`}; ` +
            `memory baseline ${fmt(s.baseline_memory_mb)} MiB, peak ${fmt(s.peak_memory_mb)} MiB`,
        );
        this.log(`  unpaired starts ${s.unpaired_starts}, orphan ends ${s.orphan_ends}, denied ${s.denied_calls}, shorter than a tick ${s.short_calls}, partial samples ${s.partial_samples}`);
        for (const c of calls) {
          this.log(`  #${c.seq} ${c.tool_name} ${(c.duration_ms / 1000).toFixed(2)} s peak ${fmt(c.peak_memory_mb)} MiB cpu ${fmt(c.avg_cpu_pct)} % ${c.exit_status ?? ''}  ${cutText(c.command.replace(/\s+/g, ' '), 80)}`);
        }
      }
      this.log(`stored in ${result.db}`);
    }
    return { db: result.db, sessions: result.sessions.map((s) => s.summary) };
  }
}

function fmt(n: number | null): string {
  return n === null ? '-' : n.toFixed(1);
}
