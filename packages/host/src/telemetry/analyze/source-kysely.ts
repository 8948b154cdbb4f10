import type { Kysely } from 'kysely';
import type { SessionRow, TelemetrySchema, ToolCallRow } from '../reduce/db/schema.js';
import type { SessionData } from './types.js';

/** Sample rows per query page (bounds what one query materialises). */
const PAGE = 50_000;

/**
 * Reads one session's calls and samples through kysely, for stores the raw better-sqlite3
 * reader (`SessionReader`) cannot open, i.e. PostgreSQL. Same result: calls by
 * `start_ts`, `seq`; samples by `seq` into typed arrays, paged on the `(session_id, seq)` key.
 */
export async function readSessionThroughKysely(db: Kysely<TelemetrySchema>, row: SessionRow): Promise<SessionData> {
  const calls = (await db.selectFrom('tool_calls').selectAll().where('session_id', '=', row.session_id).orderBy('start_ts').orderBy('seq').execute()) as ToolCallRow[];
  const t: number[] = [];
  const mem: number[] = [];
  const cpu: number[] = [];
  let after = 0;
  for (;;) {
    const page = await db.selectFrom('samples').select(['seq', 't', 'mem_mb', 'cpu_pct']).where('session_id', '=', row.session_id).where('seq', '>', after).orderBy('seq').limit(PAGE).execute();
    for (const r of page) {
      t.push(r.t);
      mem.push(r.mem_mb);
      cpu.push(r.cpu_pct);
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.seq;
  }
  return { session: row, calls, t: Float64Array.from(t), mem: Float64Array.from(mem), cpu: Float64Array.from(cpu) };
}
