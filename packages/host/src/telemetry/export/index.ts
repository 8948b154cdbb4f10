import { join } from 'node:path';
import type { ExporterEntry, ExportSession, ExportSummary } from '@cordon/plugin-api';
import type { Kysely } from 'kysely';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { terminalText } from '../../output/terminal.js';
import { redactEndpoint, redactEndpointSecrets, shownEndpoint } from '../../output/url.js';
import { TELEMETRY_DB_FILE } from '../reduce/db/open.js';
import type { SessionRow, TelemetrySchema } from '../reduce/db/schema.js';
import { openTelemetryStore, storeTarget } from '../reduce/db/target.js';
import { nothingToRead, reducePending, selectStored } from '../analyze/source.js';

export type { ExportSession, ExportSummary };

/** Input of {@link exportSessions}. */
export interface ExportRequest {
  readonly dataDir: string;
  /** The exporter that encodes and sends (`host.exporters.get('otlp')`, from @cordon/otlp). */
  readonly exporter: ExporterEntry;
  /** Receiver base URL (`http://host:4318`); may carry credentials. */
  readonly url: string;
  /** Session ids or directory names; with `since` and `all` unset and no sessions, the most recent session. */
  readonly sessions?: readonly string[];
  /** Every stored session (as `cordon analyze --all`). */
  readonly all?: boolean;
  /** Sessions whose first event is at or after this time, epoch ms. */
  readonly since?: number;
  /** Store (default `CORDON_DB`, else `<dataDir>/telemetry.sqlite3`). */
  readonly db?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Per request, ms (default 10,000). */
  readonly timeoutMs?: number;
}

/** Reads a session's calls and samples from the store (either dialect), in recorded order. */
export async function loadExportSession(db: Kysely<TelemetrySchema>, session: SessionRow): Promise<ExportSession> {
  const calls = await db.selectFrom('tool_calls').selectAll().where('session_id', '=', session.session_id).orderBy('seq').execute();
  const samples = await db.selectFrom('samples').select(['t', 'mem_mb', 'cpu_pct', 'n_procs']).where('session_id', '=', session.session_id).orderBy('seq').execute();
  return { session, calls, samples };
}

/**
 * `cordon export`: reduces sessions not yet stored, selects the requested ones from the store
 * and hands them to the exporter. The store is only read, and not created when nothing is
 * recorded (analyze/source.ts `nothingToRead`).
 * @throws CordonError `CORDON_BAD_INPUT` when a named session is unknown, nothing is stored, or a
 * store the user named (`--db`, `CORDON_DB`) does not exist (nothing is created);
 * `CORDON_EXPORT_ERROR` when the exporter fails (its message, with the URL's secrets redacted);
 * the summary's `rejection_messages` come back redacted the same way and escaped for a terminal
 * (`terminalText`: one line each, every control character as `\uXXXX`);
 * `CORDON_DB_ERROR` for the store.
 */
export async function exportSessions(req: ExportRequest): Promise<ExportSummary & { readonly db: string }> {
  const target = storeTarget(req.db, join(req.dataDir, TELEMETRY_DB_FILE), req.env ?? process.env, 'read');
  // Nothing stored and nothing to reduce: refused, or a --since export of nothing, without creating the store.
  if (nothingToRead(req.dataDir, target, req.sessions)) {
    if (req.sessions?.length) throw unknownSessions(req.sessions, target);
    if (req.since === undefined) throw new CordonError(ERROR_CODES.BAD_INPUT, `no sessions stored in ${target}`);
    return send(req, [], target);
  }
  const db = await openTelemetryStore(target);
  try {
    await reducePending(req.dataDir, db, req.sessions?.length ? req.sessions : undefined);
    const rows = await selectStored(db, { sessions: req.sessions, since: req.since, all: req.all });
    const missing = (req.sessions ?? []).filter((id) => !rows.some((r) => r.session_id === id || r.dir_name === id));
    if (missing.length) throw unknownSessions(missing, db.path);
    if (rows.length === 0 && req.since === undefined) throw new CordonError(ERROR_CODES.BAD_INPUT, `no sessions stored in ${db.path}`);
    const items: ExportSession[] = [];
    for (const row of rows) items.push(await loadExportSession(db.db, row));
    return await send(req, items, db.path);
  } finally {
    await db.close();
  }
}

/**
 * Hands `items` to the exporter; `path` is the store as messages name it.
 * @throws CordonError `CORDON_EXPORT_ERROR` with the exporter's message, the URL's secrets redacted.
 */
async function send(req: ExportRequest, items: ExportSession[], path: string): Promise<ExportSummary & { readonly db: string }> {
  // No credential of the endpoint is shown: a password, a user name standing alone, a query value.
  const shownUrl = shownEndpoint(req.url).replace(/\/+$/, '');
  // Only a URL with secrets changes text (redactEndpointSecrets also spells the URL the way URL does).
  const secret = redactEndpoint(req.url) !== new URL(req.url).toString();
  const redact = (text: string) => (secret ? redactEndpointSecrets(text, req.url.replace(/\/+$/, '')) : text);
  try {
    const summary = await req.exporter.export(items, { url: req.url, shownUrl, timeoutMs: req.timeoutMs ?? 10_000, redact });
    // A receiver's messages are its own text: escaped here, where they enter cordon, so the
    // summary (`--json`, a file a CI keeps) never carries a control character, whatever the exporter.
    return { db: path, ...summary, rejection_messages: summary.rejection_messages.map((m) => terminalText(redact(m))) };
  } catch (error) {
    // The exporter's own message, redacted again: a plugin's error must not leak the URL's secrets.
    throw new CordonError(ERROR_CODES.EXPORT_ERROR, redact(error instanceof Error ? error.message : String(error)), { details: { url: shownUrl, exporter: req.exporter.name } });
  }
}

/** The refusal of `--session` ids that match no session stored in `path` (as messages name it). */
function unknownSessions(missing: readonly string[], path: string): CordonError {
  return new CordonError(ERROR_CODES.BAD_INPUT, `--session ${missing.map((m) => JSON.stringify(m)).join(', ')}: no recorded session of that id in ${path}`, { details: { sessions: missing } });
}
