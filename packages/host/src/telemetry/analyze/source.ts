import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { TELEMETRY_DB_FILE } from '../reduce/db/names.js';
import { listSessions } from '../reduce/sessions.js';
import { reduceSession } from '../reduce/reduce-session.js';
import { settleEndedSession } from '../sampler/state.js';
import { storeSession } from '../reduce/db/store.js';
import type { TelemetryDb } from '../reduce/db/open.js';
import type { SessionRow, ToolCallRow } from '../reduce/db/schema.js';
import type { SessionData } from './types.js';

/** A session that could not be reduced or analysed: reported, then skipped. */
export interface FailedSession {
  readonly session: string;
  readonly stage: 'reduce' | 'analyze';
  readonly error: string;
}

/**
 * Reduces, into `db`, every session under `<dataDir>/runs` that has no stored row, whose
 * markers or samples changed after its row was written, or whose row was reduced while a sampler
 * was still writing it (`live`: its sampler may have stopped since without a new sample) (`names`
 * limits it to those directory names or session ids). A session that has ended is read once its
 * sampler has written its last samples (bounded, `settleEndedSession`). A session whose reduction
 * throws is returned as failed; the rest go on.
 */
export async function reducePending(dataDir: string, db: TelemetryDb, names?: readonly string[]): Promise<{ reduced: string[]; failed: FailedSession[] }> {
  const stored = new Map((await db.db.selectFrom('sessions').select(['dir_name', 'reduced_at', 'session_id', 'live']).execute()).map((r) => [r.dir_name, r]));
  const reduced: string[] = [];
  const failed: FailedSession[] = [];
  for (const loc of listSessions(dataDir)) {
    const row = stored.get(loc.name);
    if (names && !names.some((n) => n === loc.name || n === row?.session_id)) continue;
    if (row && row.reduced_at >= loc.activeAt && row.live !== 1) continue;
    try {
      settleEndedSession(loc.dir);
      await storeSession(db.db, reduceSession(loc.dir), loc.name);
      reduced.push(loc.name);
    } catch (error) {
      failed.push({ session: loc.name, stage: 'reduce', error: (error as Error).message });
    }
  }
  return { reduced, failed };
}

/**
 * True when a reader (`analyze`, `export`) opening `target` would only create it: `target` is the
 * data directory's own SQLite store (`<dataDir>/telemetry.sqlite3`), it does not exist yet, and
 * {@link reducePending} with `names` would reduce no session into it (none under
 * `<dataDir>/runs`, or none of those directory names; none at all when the reader `reduces` nothing). The reader then reports that nothing is
 * recorded without opening the store, so that a refusal leaves no empty database behind. A
 * store the user named (`--db`, `CORDON_DB`) must exist already (db/target.ts `storeTarget`).
 */
export function nothingToRead(dataDir: string, target: string, names?: readonly string[], reduces = true): boolean {
  if (target !== join(dataDir, TELEMETRY_DB_FILE) || existsSync(target)) return false;
  return !reduces || !listSessions(dataDir).some((loc) => !names?.length || names.includes(loc.name));
}

/** Which stored sessions to analyse. */
export interface SessionFilter {
  /** Session ids or directory names. */
  readonly sessions?: readonly string[];
  readonly agent?: string;
  /** Sessions whose first event is at or after this time, epoch ms. */
  readonly since?: number;
  /** Every stored session (after the other filters); without it and without filters, the most recent. */
  readonly all?: boolean;
}

/** Stored session rows matching `filter`, oldest first. */
export async function selectStored(db: TelemetryDb, filter: SessionFilter): Promise<SessionRow[]> {
  let q = db.db.selectFrom('sessions').selectAll();
  if (filter.sessions?.length) q = q.where((eb) => eb.or([eb('session_id', 'in', [...filter.sessions!]), eb('dir_name', 'in', [...filter.sessions!])]));
  if (filter.agent !== undefined) q = q.where('agent', '=', filter.agent);
  if (filter.since !== undefined) q = q.where('first_ts', '>=', filter.since);
  const rows = await q.orderBy('first_ts').orderBy('session_id').execute();
  const narrowed = filter.all || filter.sessions?.length || filter.agent !== undefined || filter.since !== undefined;
  if (narrowed || rows.length === 0) return rows;
  const latest = rows.reduce((a, r) => ((r.last_ts ?? -Infinity) >= (a.last_ts ?? -Infinity) ? r : a));
  return [latest];
}

/**
 * Reads one session's calls and samples. Samples stream from the `(session_id, seq)` primary key
 * straight into typed arrays through a raw better-sqlite3 statement: no row objects, so a batch
 * of ten million samples is read at SQLite's pace.
 */
export class SessionReader {
  readonly #calls;
  readonly #samples;

  constructor(raw: Database) {
    this.#calls = raw.prepare('select * from tool_calls where session_id = ? order by start_ts, seq');
    this.#samples = raw.prepare('select seq, t, mem_mb, cpu_pct from samples where session_id = ? and seq > ? order by seq limit ?').raw(true);
  }

  /** The session's data; `row.n_samples` sizes the arrays (they grow if it is short). */
  read(row: SessionRow): SessionData {
    const calls = this.#calls.all(row.session_id) as ToolCallRow[];
    let cap = Math.max(16, row.n_samples);
    let t: Float64Array<ArrayBuffer> = new Float64Array(cap);
    let mem: Float64Array<ArrayBuffer> = new Float64Array(cap);
    let cpu: Float64Array<ArrayBuffer> = new Float64Array(cap);
    let n = 0;
    // Pages through `all()` (several times faster per row than `iterate()`), bounded so a huge
    // session never materialises more than one page of row arrays.
    let after = 0;
    for (;;) {
      const page = this.#samples.all(row.session_id, after, PAGE) as Array<[number, number, number, number]>;
      for (const r of page) {
        if (n === cap) {
          cap *= 2;
          t = grow(t, cap);
          mem = grow(mem, cap);
          cpu = grow(cpu, cap);
        }
        t[n] = r[1];
        mem[n] = r[2];
        cpu[n] = r[3];
        n++;
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1]![0];
    }
    return { session: row, calls, t: t.subarray(0, n), mem: mem.subarray(0, n), cpu: cpu.subarray(0, n) };
  }
}

/** Sample rows per query page. */
const PAGE = 50_000;

function grow(a: Float64Array, cap: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(cap);
  b.set(a);
  return b;
}
