import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { reduce, type SessionSummary } from '../telemetry/reduce/index.js';
import { plural } from '../util/plural.js';
import { cutText } from '@cordon/plugin-api';
import type { GuardedCallRecord } from '../control/guard-join.js';

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
      // stdout holds only records; what was skipped goes to stderr.
      for (const { summary: s } of result.sessions) {
        const skipped = skippedLines(s);
        if (skipped) process.stderr.write(`cordon reduce: session ${s.session_id}: ${skipped}\n`);
      }
    } else {
      for (const { summary: s, calls } of result.sessions) {
        this.log(`session ${s.session_id}${s.agent ? ` (${s.agent})` : ''}: ${plural(s.n_toolcalls, 'call')}, ${plural(s.n_samples, 'sample')} over ${(s.span_ms / 1000).toFixed(1)} s`);
        this.log(
          `  tool time ${(s.tool_time_ms / 1000).toFixed(1)} s${s.tool_time_fraction === null ? '' : ` (${(s.tool_time_fraction * 100).toFixed(1)} % of the sampled span)`}; ` +
            `memory baseline ${fmt(s.baseline_memory_mb)} MiB, peak ${fmt(s.peak_memory_mb)} MiB`,
        );
        this.log(`  unpaired starts ${s.unpaired_starts}, orphan ends ${s.orphan_ends}, denied ${s.denied_calls}, shorter than a tick ${s.short_calls}, partial samples ${s.partial_samples}`);
        const skipped = skippedLines(s);
        if (skipped) this.log(`  ${skipped}`);
        for (const c of calls) {
          this.log(`  #${c.seq} ${c.tool_name} ${(c.duration_ms / 1000).toFixed(2)} s peak ${fmt(c.peak_memory_mb)} MiB cpu ${fmt(c.avg_cpu_pct)} % ${c.exit_status ?? ''}  ${cutText(c.command.replace(/\s+/g, ' '), 80)}${guardText(c)}`);
        }
      }
      this.log(`stored in ${result.db}`);
    }
    return { db: result.db, sessions: result.sessions.map((s) => s.summary) };
  }
}

/** ` [guard low 603 MiB, peak 12.0 MiB, stall 0 ms]` for a call run by `cordon control run`. */
function guardText(c: GuardedCallRecord): string {
  const g = c.guard;
  if (!g) return '';
  const mib = (b: number | null) => (b === null ? '-' : (b / 1048576).toFixed(1));
  const tier = g.final_tier === g.tier ? g.tier : `${g.tier}->${g.final_tier}`;
  return ` [guard ${tier} ${g.limit_bytes === null ? 'unlimited' : `${mib(g.limit_bytes)} MiB`}${g.enforced ? '' : ' (not enforced)'}, peak ${mib(g.peak_bytes)} MiB, stall ${g.stall_full_ms ?? '-'} ms]`;
}

function fmt(n: number | null): string {
  return n === null ? '-' : n.toFixed(1);
}

/**
 * `skipped N unreadable marker lines …` for a session whose marker or sample file held lines that
 * did not parse (a torn append after a full disk, a foreign line); `''` when there were none.
 */
function skippedLines(s: { bad_markers: number; bad_samples: number }): string {
  const parts: string[] = [];
  if (s.bad_markers > 0) parts.push(`${plural(s.bad_markers, 'unreadable marker line')} (torn by a full disk or a killed writer, or not cordon's)`);
  if (s.bad_samples > 0) parts.push(plural(s.bad_samples, 'unreadable sample line'));
  return parts.length ? `skipped ${parts.join(' and ')}` : '';
}
