import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/errors/index.js';
import { openTelemetryDb, openTelemetrySqlite, reduceSession, storeSession, storeSessionSqlite, TELEMETRY_DB_FILE } from '../../../src/telemetry/reduce/index.js';
import { TELEMETRY_MIGRATIONS } from '../../../src/telemetry/reduce/db/migrations.js';
import { sessionDir } from '../../../src/telemetry/session-dir.js';
import { call, marker, samples } from './helpers.js';

// `cordon reduce` stores SQLite rows through better-sqlite3's prepared multi-row inserts;
// kysely's `storeSession` stays for PostgreSQL and `analyze`. Both must write the
// same rows, value for value and type for type.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-sqlite-store-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const T = 1_800_000_000_000;

/** Every row of the three tables with each column's SQLite storage class, in key order. */
function dump(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const [table, order] of [
      ['sessions', 'session_id'],
      ['tool_calls', 'session_id, seq'],
      ['samples', 'session_id, seq'],
    ] as const) {
      const columns = (db.prepare(`pragma table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);
      const typed = columns.map((c) => `${c}, typeof(${c}) as "${c}:type"`).join(', ');
      out[table] = db.prepare(`select ${typed} from ${table} order by ${order}`).all();
    }
    return out;
  } finally {
    db.close();
  }
}

/** A session of 150 calls (some shorter than a tick, failed, unpaired) and 1,000 samples: more than one insert batch of each. */
function writeSession(data: string, id: string): void {
  marker(data, id, 'session_start', T - 500);
  for (let i = 0; i < 150; i++) {
    const start = T + i * 1000 + 0.5;
    call(data, id, `k${i}`, start, start + (i % 5 === 0 ? 20 : 700.25), { command: `cmd ${i} 'quoted' é`, ...(i % 7 === 0 ? { exit_status: 'failed', exit_code: 2 } : {}), ...(i % 11 === 0 ? { hook_overhead_ms: undefined } : {}) });
  }
  marker(data, id, 'tool_start', T + 200_000, { call_key: 'left-open' });
  marker(data, id, 'session_end', T + 210_000);
  samples(
    data,
    id,
    Array.from({ length: 1000 }, (_, i) => ({ t: T + i * 150, mb: 100 + (i % 37) * 1.125, cpu: (i * 7) % 100, procs: 1 + (i % 3), partial: i % 50 === 0 })),
  );
}

describe('storeSessionSqlite', () => {
  it('writes exactly the rows kysely storeSession writes (values and storage classes)', async () => {
    const data = join(root, 'data');
    writeSession(data, 'same-rows');
    const reduced = reduceSession(sessionDir(data, 'same-rows'));
    expect(reduced.calls.length).toBe(150);
    expect(reduced.samples.length).toBe(1000);

    const rawPath = join(root, 'raw.sqlite3');
    const raw = await openTelemetrySqlite(rawPath);
    storeSessionSqlite(raw.raw, reduced, 'same-rows', 1_234.5, 'machine-a');
    raw.close();

    const kyselyPath = join(root, 'kysely.sqlite3');
    const k = await openTelemetryDb(kyselyPath);
    await storeSession(k.db, reduced, 'same-rows', 1_234.5, 'machine-a');
    await k.close();

    const a = dump(rawPath);
    const b = dump(kyselyPath);
    expect(a.tool_calls).toHaveLength(150);
    expect(a.samples).toHaveLength(1000);
    expect(a).toEqual(b);
  });

  it('replaces an earlier reduction of the session and refuses one another machine stored, leaving it unchanged', async () => {
    const data = join(root, 'data');
    writeSession(data, 'replace-me');
    const reduced = reduceSession(sessionDir(data, 'replace-me'));
    const path = join(root, TELEMETRY_DB_FILE);
    const db = await openTelemetrySqlite(path);
    storeSessionSqlite(db.raw, reduced, 'replace-me', 1, 'm1');
    storeSessionSqlite(db.raw, { ...reduced, calls: reduced.calls.slice(0, 10), samples: reduced.samples.slice(0, 70) }, 'replace-me', 2, 'm1');
    const count = (table: string) => (db.raw.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    expect([count('sessions'), count('tool_calls'), count('samples')]).toEqual([1, 10, 70]);
    expect(() => storeSessionSqlite(db.raw, reduced, 'replace-me', 3, 'm2')).toThrow(expect.objectContaining({ code: ERROR_CODES.DB_ERROR, message: expect.stringContaining('already stored by machine "m1"') }));
    expect([count('sessions'), count('tool_calls'), count('samples')]).toEqual([1, 10, 70]);
    expect((db.raw.prepare('select reduced_at from sessions').get() as { reduced_at: number }).reduced_at).toBe(2);
    db.close();
  });
});

describe('openTelemetrySqlite', () => {
  it('migrates a new file (through kysely) owner-only, and opens a migrated one as it is', async () => {
    const path = join(root, 'new', TELEMETRY_DB_FILE);
    const first = await openTelemetrySqlite(path);
    const names = (first.raw.prepare('select name from kysely_migration order by name').pluck().all() as string[]);
    expect(names).toEqual(Object.keys(TELEMETRY_MIGRATIONS).sort());
    first.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = await openTelemetrySqlite(path);
    expect(again.raw.prepare('select count(*) from kysely_migration').pluck().get()).toBe(names.length);
    again.close();
  });

  it('refuses a file a newer cordon migrated, naming it, and leaves it unchanged', async () => {
    const path = join(root, TELEMETRY_DB_FILE);
    (await openTelemetrySqlite(path)).close();
    const raw = new Database(path);
    raw.prepare(`insert into kysely_migration (name, timestamp) values ('9999_future', 'x')`).run();
    raw.close();
    await expect(openTelemetrySqlite(path)).rejects.toMatchObject({ code: ERROR_CODES.DB_ERROR, message: expect.stringContaining('9999_future') });
  });
});
