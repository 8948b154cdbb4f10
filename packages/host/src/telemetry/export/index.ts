import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { TELEMETRY_DB_FILE } from '../reduce/db/open.js';
import { openTelemetryStore, resolveDbTarget } from '../reduce/db/target.js';
import { reducePending, selectStored } from '../analyze/source.js';
import { exportSessions, loadExportSession, type ExportSummary } from './otlp.js';

export * from './otlp.js';

/** Input of {@link exportToOtlp}. */
export interface ExportRequest {
  readonly dataDir: string;
  /** Collector base URL (`http://host:4318`). */
  readonly url: string;
  /** Session ids or directory names; with `since` unset and no sessions, the most recent session. */
  readonly sessions?: readonly string[];
  /** Sessions whose first event is at or after this time, epoch ms. */
  readonly since?: number;
  /** Store (default `CORDON_DB`, else `<dataDir>/telemetry.sqlite3`). */
  readonly db?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/**
 * `cordon export --otlp`: reduces sessions not yet stored, selects the requested ones from the
 * store and sends them ({@link exportSessions}).
 * @throws CordonError `CORDON_BAD_INPUT` when a named session is unknown or nothing is stored;
 * `CORDON_EXPORT_ERROR` when the receiver fails; `CORDON_DB_ERROR` for the store.
 */
export async function exportToOtlp(req: ExportRequest): Promise<ExportSummary & { readonly db: string }> {
  const target = resolveDbTarget(req.db, join(req.dataDir, TELEMETRY_DB_FILE), req.env ?? process.env);
  const db = await openTelemetryStore(target);
  try {
    await reducePending(req.dataDir, db, req.sessions?.length ? req.sessions : undefined);
    const rows = await selectStored(db, { sessions: req.sessions, since: req.since });
    const missing = (req.sessions ?? []).filter((id) => !rows.some((r) => r.session_id === id || r.dir_name === id));
    if (missing.length) throw new CordonError(ERROR_CODES.BAD_INPUT, `--session ${missing.map((m) => JSON.stringify(m)).join(', ')}: no recorded session of that id in ${db.path}`, { details: { sessions: missing } });
    if (rows.length === 0 && req.since === undefined) throw new CordonError(ERROR_CODES.BAD_INPUT, `no sessions stored in ${db.path}`);
    const items = [];
    for (const row of rows) items.push(await loadExportSession(db.db, row));
    return { db: db.path, ...(await exportSessions(items, { url: req.url, timeoutMs: req.timeoutMs })) };
  } finally {
    await db.close();
  }
}
