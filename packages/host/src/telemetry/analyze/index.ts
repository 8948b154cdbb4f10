import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { plural } from '../../util/plural.js';
import { TELEMETRY_DB_FILE } from '../reduce/db/open.js';
import { isPostgresUrl, openTelemetryStore, storeTarget } from '../reduce/db/target.js';
import { readSessionThroughKysely } from './source-kysely.js';
import { RUNS_DIR } from '../session-dir.js';
import { BatchAccumulator, type BatchAnalysis } from './batch.js';
import { compareWithPaper, type ComparisonRow } from './paper.js';
import { compileRules, DEFAULT_CATEGORY_RULES, type CompiledRule } from './rules.js';
import { nothingToRead, reducePending, selectStored, SessionReader, type FailedSession, type SessionFilter } from './source.js';
import { DEFAULT_ANALYZE_OPTIONS, type AnalyzeOptions } from './types.js';
import type { SessionRow } from '../reduce/db/schema.js';

export * from './types.js';
export * from './rules.js';
export * from './execution.js';
export * from './memory.js';
export * from './tools.js';
export * from './retry.js';
export * from './correlation.js';
export * from './bursts.js';
export * from './session.js';
export * from './batch.js';
export * from './paper.js';
export * from './source.js';

/** Version of the JSON report's shape; bumped on any incompatible change. */
export const ANALYSIS_SCHEMA_VERSION = 1;

/** Which definition each reported number uses (printed in every report format). */
export const DEFINITIONS: Readonly<Record<string, string>> = Object.freeze({
  execution: 'tool time = union of call windows clipped to the sampled span (last − first sample), over that span; the paper\'s share = Σ call durations / active time (first to last event), both reported',
  baseline: 'median of the samples outside every call window (the paper\'s framework idle memory, §3.3 Fig. 4b); the reference\'s 10th percentile of all samples is reported as baseline_p10_mb',
  peak_over_avg: 'max / mean of the session\'s samples (paper code); per call: window max / window mean over calls with mean > 0',
  spike: 'a call\'s window peak − the last sample before the call started (paper code)',
  tools: 'shares of Σ call durations; shell categories from the rule table, first match wins',
  retry: '≥ 3 consecutive shell calls with identical command; time share = Σ their durations / active time, averaged over sessions with loops; unreleased = first sample after − last sample before',
  correlation: 'Pearson r of memory and CPU over a session\'s samples, sessions with ≥ 10 samples',
  bursts: 'a burst sample has memory above the threshold (absolute, paper code: 300 MB); in-call shares pooled over all samples; change rate = max |Δmem|/Δt of consecutive samples; burst duration = last − first time of a run of burst samples',
  units: 'times in ms (epoch ms for instants), memory in MiB (RSS summed over the agent\'s process tree), CPU in % of one core',
});

/** Input of {@link analyze}. */
export interface AnalyzeRequest extends SessionFilter {
  readonly dataDir: string;
  /** Telemetry store: an SQLite path or a `postgres://` URL (default `CORDON_DB`, else `<dataDir>/telemetry.sqlite3`). */
  readonly db?: string;
  /** Environment for `CORDON_DB` (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Shell-command categories (default {@link DEFAULT_CATEGORY_RULES}). */
  readonly rules?: readonly CompiledRule[];
  readonly options?: Partial<AnalyzeOptions>;
  /** Sessions whose timelines the charts keep (default 12). */
  readonly chartSessions?: number;
  /** Reduce sessions that are not reduced yet (default true). */
  readonly reduceFirst?: boolean;
  /** Called after each session: `done` of `total`. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * The `agent`/`since` filter as the user gave it, for the refusal when it leaves no session
   * (`--since 2030-01-01`, `--compare agent:aider`); default {@link filterText} of the filter.
   */
  readonly filterText?: string;
}

/** The `agent` and `since` of `filter` as flags (`--agent codex --since 2030-01-01T00:00:00.000Z`). */
export function filterText(filter: SessionFilter): string {
  const parts: string[] = [];
  if (filter.agent !== undefined) parts.push(`--agent ${filter.agent}`);
  if (filter.since !== undefined) parts.push(`--since ${new Date(filter.since).toISOString()}`);
  return parts.join(' ');
}

/** The whole analysis of a batch: what every report format renders. */
export interface AnalysisReport extends BatchAnalysis {
  readonly schema_version: number;
  readonly generated_at: string;
  readonly db: string;
  readonly filter: SessionFilter;
  readonly options: AnalyzeOptions;
  readonly definitions: Readonly<Record<string, string>>;
  readonly comparison: ComparisonRow[];
  /** Sessions that failed to reduce or analyse; the batch went on without them. */
  readonly failed: FailedSession[];
  /** Sessions reduced by this run before analysing. */
  readonly reduced: string[];
}

/**
 * Refuses a selection that leaves nothing to analyse (`rows`, the stored rows it selected;
 * `failed`, the sessions that could not be reduced; `path`, the store as messages name it):
 * `CORDON_BAD_INPUT` for a `--session` id that matches nothing, for an `agent`/`since` filter that
 * matches no session, and for no session at all. Returns when there is something to analyse.
 */
function refuseSelection(req: AnalyzeRequest, filter: SessionFilter, rows: readonly SessionRow[], failed: readonly FailedSession[], path: string): void {
  const missing = (req.sessions ?? []).filter((id) => !rows.some((r) => r.session_id === id || r.dir_name === id) && !failed.some((f) => f.session === id));
  if (missing.length) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `--session ${missing.map((m) => JSON.stringify(m)).join(', ')}: no recorded session of that id in ${path} or under ${join(req.dataDir, RUNS_DIR)}`, { details: { sessions: missing } });
  }
  const filtered = filter.agent !== undefined || filter.since !== undefined;
  if (rows.length === 0 && filtered) {
    // One line naming the filter, not a report of nothing; a session that failed to reduce may
    // be one it would have matched, so those are named too.
    const skipped = failed.length ? ` (${plural(failed.length, 'session')} could not be reduced: ${failed.map((f) => f.session).join(', ')})` : '';
    const text = req.filterText ?? filterText(filter);
    throw new CordonError(ERROR_CODES.BAD_INPUT, `no recorded session matches ${text}${skipped}`, { details: { db: path, filter: text } });
  }
  if (rows.length === 0 && !failed.length && !filtered) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `no recorded sessions under ${join(req.dataDir, RUNS_DIR)} and none stored in ${path}: a session is recorded once an agent with cordon's hooks makes a tool call (\`cordon install-hooks\` installs them, \`cordon doctor\` says for which agents they are in place) or an agent runs under \`cordon wrap\``, { details: { db: path } });
  }
}

/**
 * `cordon analyze`: reduces pending sessions, then streams the selected stored sessions through
 * the five passes and the burst profile (one session in memory at a time), pools them and compares
 * the pooled figures with the AgentCgroup paper's §3 numbers.
 * @throws CordonError `CORDON_DB_ERROR` when the database cannot be used; `CORDON_BAD_INPUT` when a
 * store the user named (`--db`, `CORDON_DB`) does not exist (nothing is created), when
 * a `sessions` id matches nothing, when there is no session at all, or when an `agent` or `since`
 * filter matches none (`no recorded session matches --since 2030-01-01`, naming
 * {@link AnalyzeRequest.filterText}; no empty report). When nothing is stored or recorded, the
 * default store is not created by the refusal (source.ts `nothingToRead`).
 */
export async function analyze(req: AnalyzeRequest): Promise<AnalysisReport> {
  const target = storeTarget(req.db, join(req.dataDir, TELEMETRY_DB_FILE), req.env ?? process.env, 'read');
  const options: AnalyzeOptions = { ...DEFAULT_ANALYZE_OPTIONS, ...req.options };
  const rules = req.rules ?? compileRules(DEFAULT_CATEGORY_RULES);
  const filter: SessionFilter = { sessions: req.sessions, agent: req.agent, since: req.since, all: req.all };
  // Nothing stored and nothing to reduce: refused as an empty store would be, without creating one.
  if (nothingToRead(req.dataDir, target, req.sessions, req.reduceFirst !== false)) refuseSelection(req, filter, [], [], target);
  const db = await openTelemetryStore(target);
  // What reports and messages name: for PostgreSQL the URL with its password redacted.
  const path = db.path;
  const failed: FailedSession[] = [];
  let reduced: string[] = [];
  try {
    if (req.reduceFirst !== false) {
      const r = await reducePending(req.dataDir, db, req.sessions?.length ? req.sessions : undefined);
      reduced = r.reduced;
      failed.push(...r.failed);
    }
    const rows = await selectStored(db, filter);
    refuseSelection(req, filter, rows, failed, path);
    const acc = new BatchAccumulator(rules, { ...options, chartSessions: req.chartSessions ?? 12, chartPoints: 400 });
    if (isPostgresUrl(target)) {
      // PostgreSQL: the same passes over rows read through kysely, one session at a time.
      for (const [i, row] of rows.entries()) {
        try {
          acc.add(await readSessionThroughKysely(db.db, row));
        } catch (error) {
          failed.push({ session: row.session_id, stage: 'analyze', error: (error as Error).message });
        }
        req.onProgress?.(i + 1, rows.length);
      }
    } else {
      const { default: Database } = await import('better-sqlite3');
      const raw = new Database(path, { readonly: true, timeout: 10_000 });
      try {
        const reader = new SessionReader(raw);
        rows.forEach((row, i) => {
          try {
            acc.add(reader.read(row));
          } catch (error) {
            failed.push({ session: row.session_id, stage: 'analyze', error: (error as Error).message });
          }
          req.onProgress?.(i + 1, rows.length);
        });
      } finally {
        raw.close();
      }
    }
    const batch = acc.result();
    return {
      schema_version: ANALYSIS_SCHEMA_VERSION,
      generated_at: new Date().toISOString(),
      db: path,
      filter,
      options,
      definitions: DEFINITIONS,
      ...batch,
      comparison: compareWithPaper(batch.pooled),
      failed,
      reduced,
    };
  } finally {
    await db.close();
  }
}
