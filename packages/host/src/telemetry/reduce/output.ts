import { cutText } from '@cordon/plugin-api';
import type { GuardedCallRecord } from '../../control/guard-join.js';
import { plural } from '../../util/plural.js';
import { terminalText } from '../../output/terminal.js';
import type { ReduceResult } from './reduce.js';
import type { SessionSummary } from './reduce-session.js';
import { shownJson } from '../../output/json-text.js';

/** What `cordon reduce --json` prints. */
export interface ReduceReport {
  /** The telemetry database written. */
  db: string;
  /** One summary per reduced session. */
  sessions: SessionSummary[];
  /** Sessions `--all` went on without, each with why (a session file that cannot be read). */
  skipped: Array<{ session: string; reason: string }>;
}

/** The `--json` report of `result`: the database and each session's summary. */
export function reduceReport(result: ReduceResult): ReduceReport {
  return { db: result.db, sessions: result.sessions.map((s) => s.summary), skipped: result.skipped.map((s) => ({ ...s })) };
}

/**
 * One stderr line per session `reduce --all` went on without (`cordon reduce: session ID skipped:
 * why`), each ending with `\n`; the text and `--jsonl` outputs print them, `--json` holds them in
 * `skipped`. Escaped for the terminal: a session's name is the agent's.
 */
export function reduceSkippedLines(result: ReduceResult): string[] {
  return result.skipped.map((s) => terminalText(`cordon reduce: session ${s.session} skipped: ${s.reason}`) + '\n');
}

/**
 * The text `cordon reduce` prints (one string per line, without newlines): per session its
 * counts, tool time, memory, skipped lines and one line per call; then where it was stored.
 * Shared by the oclif command and the fast route of `bin/run.cjs` so both print the same.
 * Session ids, agent and tool names and commands are the agent's: every line is escaped for the
 * terminal ({@link terminalText}).
 */
export function reduceTextLines(result: ReduceResult): string[] {
  const lines: string[] = [];
  for (const { summary: s, calls } of result.sessions) {
    lines.push(`session ${s.session_id}${s.agent ? ` (${s.agent})` : ''}: ${plural(s.n_toolcalls, 'call')}, ${plural(s.n_samples, 'sample')} over ${(s.span_ms / 1000).toFixed(1)} s${s.live ? '; live: still being sampled, these numbers are partial' : ''}`);
    // The memory floor is shown as what it is, the 10th percentile of all samples: `cordon
    // analyze` calls the median outside every call window the baseline (the paper's), and one
    // word for two figures read as a disagreement (docs/telemetry.md).
    lines.push(
      `  tool time ${(s.tool_time_ms / 1000).toFixed(1)} s${s.tool_time_fraction === null ? '' : ` (${(s.tool_time_fraction * 100).toFixed(1)} % of the sampled span)`}; ` +
        (s.baseline_memory_mb === null && s.peak_memory_mb === null ? 'memory: no samples' : `memory p10 ${measured(s.baseline_memory_mb, 'MiB')}, peak ${measured(s.peak_memory_mb, 'MiB')}`),
    );
    lines.push(`  unpaired starts ${s.unpaired_starts}, orphan ends ${s.orphan_ends}, denied ${s.denied_calls}, shorter than a tick ${s.short_calls}, partial samples ${s.partial_samples}`);
    const skipped = skippedLines(s);
    if (skipped) lines.push(`  ${skipped}`);
    for (const c of calls) {
      // A call shorter than a sampling tick has no sample: said so, not as `peak - MiB cpu - %`.
      const usage = c.peak_memory_mb === null && c.avg_cpu_pct === null ? 'no samples' : `peak ${measured(c.peak_memory_mb, 'MiB')} cpu ${measured(c.avg_cpu_pct, '%')}`;
      lines.push(`  #${c.seq} ${c.tool_name} ${(c.duration_ms / 1000).toFixed(2)} s ${usage} ${exitText(c)}  ${cutText(c.command.replace(/\s+/g, ' '), 80)}${guardText(c)}`);
    }
  }
  lines.push(`stored in ${result.db}`);
  return lines.map(terminalText);
}

/**
 * `--jsonl`: one JSON line per tool-call record for stdout, and for stderr one line per session
 * whose files held unreadable lines (stdout holds only records). Each string ends with `\n`.
 */
export function reduceJsonl(result: ReduceResult): { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  for (const s of result.sessions) for (const call of s.calls) stdout.push(shownJson(call) + '\n');
  for (const { summary: s } of result.sessions) {
    const skipped = skippedLines(s);
    if (skipped) stderr.push(`cordon reduce: session ${terminalText(s.session_id)}: ${skipped}\n`);
  }
  stderr.push(...reduceSkippedLines(result));
  return { stdout, stderr };
}

/** ` [guard low 603 MiB, peak 12.0 MiB, stall 0 ms]` for a call run by `cordon control run`. */
function guardText(c: GuardedCallRecord): string {
  const g = c.guard;
  if (!g) return '';
  const mib = (b: number | null) => measured(b === null ? null : b / 1048576, 'MiB');
  const tier = g.final_tier === g.tier ? g.tier : `${g.tier}->${g.final_tier}`;
  return ` [guard ${tier} ${g.limit_bytes === null ? 'unlimited' : mib(g.limit_bytes)}${g.enforced ? '' : ' (not enforced)'}, peak ${mib(g.peak_bytes)}, stall ${g.stall_full_ms === null ? 'not measured' : `${g.stall_full_ms} ms`}]`;
}

/** How a call ended: `ok`, `failed exit 2`, `denied`, `unknown`; `exit 0` where only the code is known. */
function exitText(c: { exit_status?: string | null; exit_code?: number | null }): string {
  const code = typeof c.exit_code === 'number' ? `exit ${c.exit_code}` : '';
  if (!c.exit_status) return code || 'unknown';
  return code && c.exit_status !== 'ok' ? `${c.exit_status} ${code}` : c.exit_status;
}

/** `12.5 MiB`: `n` to one decimal with its unit, or `not measured` (never a dash with a unit after it). */
function measured(n: number | null, unit: string): string {
  return n === null ? 'not measured' : `${n.toFixed(1)} ${unit}`;
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
