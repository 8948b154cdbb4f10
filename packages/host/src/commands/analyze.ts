import { existsSync } from 'node:fs';
import { cutText } from '@cordon/plugin-api';
import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { numberFlag } from '../cli/number-flag.js';
import { outputFileFlag } from '../cli/output-file-flag.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { readRegularFile } from '../io/index.js';
import { parseJsonText } from '../util/json-syntax.js';
import { writeReport } from '../output/report-file.js';
import { displayName, terminalText } from '../output/terminal.js';
import { ANALYSIS_SCHEMA_VERSION, analyze, loadRules, type AnalysisReport, type AnalyzeRequest } from '../telemetry/analyze/index.js';
import { compareTable, type CompareReport, type LabelledReport } from '../telemetry/analyze/report/compare.js';
import { renderHtml } from '../telemetry/analyze/report/html.js';
import { pluginInstallCommand } from '../plugins/install-hint.js';
import { progressBar } from '../telemetry/analyze/report/progress.js';
import { renderJson, renderMarkdown, renderTable, renderText } from '../telemetry/analyze/report/text.js';
import { shownJson } from '../output/json-text.js';

const FORMATS = ['text', 'md', 'json', 'html'] as const;

export default class Analyze extends CordonCommand {
  static override summary = 'Where did the time and memory of a batch of agent sessions go, measured against the AgentCgroup paper';
  static override description = [
    'Reduces the sessions that are not reduced yet, then runs five passes per session and pooled over the batch: execution split (tool time as the union',
    'of call windows over the sampled span), memory profile (baseline, peak, peak/average per session and per call), per-tool and shell-category',
    'breakdown, retry loops (3 or more identical consecutive shell commands) and CPU-memory correlation, plus the burst profile. Each pooled figure is',
    'compared with the paper\'s §3 figure (matches / lower / higher / no data) with the definition it uses and how the measurement differs.',
    'A failed session is reported and skipped.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> --all',
    '<%= config.bin %> <%= command.id %> --agent codex --since 2026-11-01 --format html --out report.html',
    '<%= config.bin %> <%= command.id %> --session 458959e6-c878-410e-a259-d3141ffa1f15 --format json',
    '<%= config.bin %> <%= command.id %> --compare agent:claude-code agent:codex --format md',
  ];

  // Each selector picks the batch: one that another overrides would be ignored without a word.
  static override flags = {
    session: Flags.string({ description: 'Analyse this session (agent session id or directory name); repeatable', multiple: true, exclusive: ['all', 'compare'] }),
    all: Flags.boolean({ description: 'Every reduced session (default: the most recently active one, unless --agent or --since narrows the batch)', exclusive: ['session', 'compare'] }),
    since: Flags.string({ description: 'Sessions whose first event is at or after this date (ISO 8601, e.g. 2026-11-01 or 2026-11-01T12:00Z)', exclusive: ['compare'] }),
    agent: Flags.string({ description: 'Sessions of this agent (claude-code, codex, gemini, …)', exclusive: ['compare'] }),
    out: outputFileFlag({ description: 'Write the report to this file instead of stdout (- is stdout; a new file gets 0666 minus the umask, an existing one keeps its mode)' }),
    format: Flags.string({ description: 'Report format', options: [...FORMATS], default: 'text' }),
    compare: Flags.string({ description: 'Two batches side by side: each agent:NAME, since:DATE, session:ID[,ID…], all, or a JSON report file of an earlier run', multiple: true, exclusive: ['session', 'all', 'agent', 'since'] }),
    rules: Flags.string({ description: 'JSON file of shell-command category rules ([{"category", "pattern", "flags"?}], first match wins) replacing the defaults' }),
    'burst-threshold': numberFlag({ integer: true, min: 1, unit: 'MiB' })({ description: 'Memory above which a sample is a burst, MiB (paper: 300)' }),
    'burst-above-baseline': Flags.boolean({ description: 'Count bursts above each session\'s baseline plus the threshold instead of above the absolute threshold' }),
    db: Flags.string({ description: 'Telemetry store to read: an SQLite file that exists (`cordon reduce --db` makes one) or a postgres:// URL (default $CORDON_DB, else <data>/telemetry.sqlite3)', helpValue: 'PATH|URL' }),
  };

  async run(): Promise<AnalysisReport | CompareReport> {
    const { flags } = await this.parse(Analyze);
    const host = await this.host();
    // The rule of every command with --format (check's too): --json is its own output.
    if (this.jsonEnabled() && flags.format !== 'text' && flags.format !== 'json') throw new CordonError(ERROR_CODES.BAD_INPUT, `--json prints the analysis as JSON; it cannot be combined with --format ${flags.format}`);
    const format = this.jsonEnabled() ? 'json' : (flags.format as (typeof FORMATS)[number]);
    // The charts are optional (@cordon/charts carries Vega): without them the report has its tables.
    const charts = format === 'html' && !flags.compare ? host.charts.list()[0]?.entry : undefined;
    const base: AnalyzeRequest = {
      dataDir: host.paths.dataDir,
      db: flags.db,
      rules: flags.rules ? loadRules(flags.rules) : undefined,
      options: { ...(flags['burst-threshold'] ? { burstThresholdMb: flags['burst-threshold'] } : {}), ...(flags['burst-above-baseline'] === undefined ? {} : { burstAboveBaseline: flags['burst-above-baseline'] }) },
    };
    if (flags.compare) {
      if (flags.compare.length !== 2) throw new CordonError(ERROR_CODES.BAD_INPUT, `--compare takes two batches (A B), got ${flags.compare.length}`, { details: { compare: flags.compare } });
      const batches: LabelledReport[] = [];
      for (const spec of flags.compare) batches.push({ label: spec, report: await this.batch(spec, base) });
      const result: CompareReport = { schema_version: ANALYSIS_SCHEMA_VERSION, generated_at: new Date().toISOString(), batches };
      const table = compareTable(batches[0]!, batches[1]!);
      if (!this.jsonEnabled()) await this.emit(flags.out, format === 'json' ? shownJson(result, 2) + '\n' : renderTable(table, format === 'md' ? 'md' : 'text'));
      return result;
    }
    // The filter as typed, for the refusal when it leaves no session.
    const typed = [...(flags.agent !== undefined ? [`--agent ${flags.agent}`] : []), ...(flags.since !== undefined ? [`--since ${flags.since}`] : [])].join(' ');
    const report = await this.runBatch({ ...base, sessions: flags.session, all: flags.all, agent: flags.agent, since: flags.since === undefined ? undefined : parseSince(flags.since), filterText: typed });
    // Under --json, stdout gets the JSON once: `--out -` adds nothing.
    if (!this.jsonEnabled() || (flags.out !== undefined && flags.out !== '-')) {
      const text = format === 'json' ? renderJson(report) : format === 'md' ? renderMarkdown(report) : format === 'html' ? await renderHtml(report, charts ? charts.renderSvg : { missing: chartsHint() }) : renderText(report);
      await this.emit(flags.out, text);
      if (format === 'html' && !charts) this.logToStderr(`the report has no charts: ${chartsHint()}`);
    }
    return report;
  }

  /** One `--compare` batch: a JSON report file, or a selection. */
  private async batch(spec: string, base: AnalyzeRequest): Promise<AnalysisReport> {
    if (existsSync(spec)) {
      return readSavedReport(spec);
    }
    const [kind, ...rest] = spec.split(':');
    const value = rest.join(':');
    if (kind === 'agent' && value) return this.runBatch({ ...base, agent: value, filterText: `--compare ${spec}` });
    if (kind === 'since' && value) return this.runBatch({ ...base, since: parseSince(value), filterText: `--compare ${spec}` });
    if (kind === 'session' && value) return this.runBatch({ ...base, sessions: value.split(',') });
    if (spec === 'all') return this.runBatch({ ...base, all: true });
    throw new CordonError(ERROR_CODES.BAD_INPUT, `--compare ${JSON.stringify(spec)}: expected agent:NAME, since:DATE, session:ID[,ID…], all, or an existing JSON report file`, { details: { compare: spec } });
  }

  private async runBatch(req: AnalyzeRequest): Promise<AnalysisReport> {
    const bar = progressBar(process.stderr, 'analyze');
    try {
      const report = await analyze({ ...req, onProgress: bar.onProgress });
      bar.done();
      for (const f of report.failed) this.warn(terminalText(`session ${f.session} skipped: ${f.stage} failed: ${f.error}`));
      return report;
    } catch (error) {
      bar.done();
      throw error;
    }
  }

  private async emit(out: string | undefined, text: string): Promise<void> {
    if (out !== undefined && out !== '-') {
      await writeReport(out, text);
      this.logToStderr(`wrote ${terminalText(out)}`);
    } else process.stdout.write(text);
  }
}

/**
 * A saved `cordon analyze --format json` report given to `--compare`.
 * @throws CordonError `CORDON_BAD_INPUT` (exit 2) naming the file and what was expected: a file
 *   that is not JSON (a truncated save, the HTML or Markdown report), or JSON of another shape.
 */
export function readSavedReport(path: string): AnalysisReport {
  const expected = `expected a JSON report written by \`cordon analyze --format json\` (schema version ${ANALYSIS_SCHEMA_VERSION})`;
  const shown = `--compare ${displayName(path)}`;
  let text: string;
  try {
    text = readRegularFile(path, { maxBytes: 512 << 20, links: 'always' }).toString('utf8');
  } catch (error) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `${shown}: cannot read it (${(error as Error).message}); ${expected}`, { details: { path } });
  }
  let parsed: Partial<AnalysisReport> | null;
  try {
    // parseJsonText: where the damage is as an editor shows it, not V8's excerpt of the text.
    parsed = parseJsonText(text) as Partial<AnalysisReport> | null;
  } catch (error) {
    const what = /^\s*</.test(text) ? 'an HTML or XML document' : text.trim() === '' ? 'empty' : /^\s*[[{]/.test(text) ? `JSON cut short or damaged (${(error as Error).message})` : 'not JSON';
    throw new CordonError(ERROR_CODES.BAD_INPUT, `${shown}: ${what}; ${expected}`, { details: { path } });
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.schema_version !== ANALYSIS_SCHEMA_VERSION || !Array.isArray(parsed.comparison) || !Array.isArray(parsed.sessions) || typeof parsed.pooled !== 'object') {
    const version = parsed && typeof parsed === 'object' && 'schema_version' in parsed ? ` (it has schema version ${JSON.stringify(parsed.schema_version)})` : '';
    throw new CordonError(ERROR_CODES.BAD_INPUT, `${shown}: JSON, but not an analyze report${version}; ${expected}`, { details: { path } });
  }
  const damage = savedReportDamage(parsed as AnalysisReport);
  if (damage) throw new CordonError(ERROR_CODES.BAD_INPUT, `${shown}: JSON, but ${damage}; ${expected}`, { details: { path } });
  return parsed as AnalysisReport;
}

/** The text fields of a comparison row that `--compare` prints. */
const ROW_TEXT = ['id', 'quantity', 'paper_section', 'paper_figure', 'unit', 'sample_count', 'verdict'] as const;

/**
 * What of a saved report `--compare` reads (`pooled.n_sessions` and each comparison row's fields)
 * has another type, said as its path (`comparison[0].measured is "1", not a number or null`);
 * `undefined` when nothing. A hand-edited or damaged report otherwise stopped the command with
 * a `TypeError` (CORDON_INTERNAL, exit 1) that named no file.
 */
function savedReportDamage(report: AnalysisReport): string | undefined {
  const shown = (v: unknown) => cutText(JSON.stringify(v) ?? String(v), 40);
  if (typeof report.pooled?.n_sessions !== 'number' || !Number.isFinite(report.pooled.n_sessions)) return `pooled.n_sessions is ${shown(report.pooled?.n_sessions)}, not a number`;
  for (const [i, row] of report.comparison.entries()) {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) return `comparison[${i}] is ${shown(row)}, not an object`;
    for (const key of ROW_TEXT) if (typeof row[key] !== 'string') return `comparison[${i}].${key} is ${shown(row[key])}, not a string`;
    if (row.measured !== null && !(typeof row.measured === 'number' && Number.isFinite(row.measured))) return `comparison[${i}].measured is ${shown(row.measured)}, not a number or null`;
  }
  return undefined;
}

/** `--since` as epoch ms. @throws CordonError `CORDON_BAD_INPUT` when it is not a date. */
export function parseSince(text: string): number {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new CordonError(ERROR_CODES.BAD_INPUT, `--since ${JSON.stringify(text)}: not a date (use ISO 8601, e.g. 2026-11-01 or 2026-11-01T12:00Z)`, { details: { since: text } });
  return ms;
}

/** What the HTML report and stderr say when no plugin draws charts: the command that adds one here. */
function chartsHint(): string {
  return `charts need the @cordon/charts plugin (it carries Vega, which the CLI does not): ${pluginInstallCommand(['charts'])}`;
}
