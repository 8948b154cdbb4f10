import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon } from '../../../../../test/support/cli.js';
import { pgUnavailable, startPgCluster, type PgCluster } from '../../../../../test/support/postgres.js';
import { ERROR_CODES } from '../../../src/errors/index.js';
import { analyze } from '../../../src/telemetry/analyze/index.js';
import { reduce } from '../../../src/telemetry/reduce/index.js';
import { TELEMETRY_MIGRATIONS } from '../../../src/telemetry/reduce/db/migrations.js';
import { redactUrl, resolveDbTarget } from '../../../src/telemetry/reduce/db/target.js';
import { call, marker, samples } from './helpers.js';

/** The telemetry store in a real PostgreSQL cluster, beside the SQLite suite. */

const T = 1_800_000_000_000;
const unavailable = pgUnavailable();
if (unavailable) console.warn(`skipping the PostgreSQL store tests: ${unavailable}`);

let cluster: PgCluster;
let data: string;
let dbCount = 0;
beforeAll(async () => {
  if (!unavailable) cluster = await startPgCluster();
}, 120_000);
afterAll(() => cluster?.stop());
beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), 'cordon-reduce-pg-'));
});
afterEach(() => rmSync(data, { recursive: true, force: true }));

async function query<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.skipIf(unavailable)('reduce into PostgreSQL', () => {
  it('stores calls, samples and the summary through the same migrations, replaces them on a second run, carries the machine', async () => {
    const url = await cluster.createDatabase(`t${++dbCount}`);
    call(data, 'sess-1', 'k1', T + 0, T + 1000);
    samples(data, 'sess-1', [{ t: T + 500, mb: 300, cpu: 50 }]);
    marker(data, 'sess-1', 'session_end', T + 2000);
    const first = await reduce({ dataDir: data, session: 'sess-1', db: url, env: { CORDON_MACHINE: 'ci-1' } });
    expect(first.db).toBe(url.replace(`${new URL(url).username}:${cluster.password}`, '***'));
    expect(first.db).not.toContain(cluster.password);
    call(data, 'sess-1', 'k2', T + 1100, T + 1200);
    await reduce({ dataDir: data, session: 'sess-1', env: { CORDON_DB: url, CORDON_MACHINE: 'ci-1' } });
    expect((await query<{ name: string }>(url, 'select name from kysely_migration order by name')).map((r) => r.name)).toEqual(['0001_sessions_tool_calls_samples', '0002_machine', '0003_cordon_cost', '0004_loop_breaker', '0005_sampled_span']);
    expect(await query(url, 'select seq, call_key, peak_memory_mb, n_samples, machine from tool_calls order by seq')).toEqual([
      { seq: 1, call_key: 'k1', peak_memory_mb: 300, n_samples: 1, machine: 'ci-1' },
      { seq: 2, call_key: 'k2', peak_memory_mb: null, n_samples: 0, machine: 'ci-1' },
    ]);
    expect(await query(url, 'select session_id, n_toolcalls, ended, short_calls, sampler_stop_reasons, machine from sessions')).toEqual([
      { session_id: 'sess-1', n_toolcalls: 2, ended: 1, short_calls: 1, sampler_stop_reasons: '[]', machine: 'ci-1' },
    ]);
    expect(await query(url, 'select count(*)::int as n, min(machine) as machine from samples')).toEqual([{ n: 1, machine: 'ci-1' }]);
  });

  it('text PostgreSQL cannot hold (NUL, lone surrogates) from an agent is stored as U+FFFD, the rest as sent', async () => {
    const url = await cluster.createDatabase(`t${++dbCount}`);
    const commands = ['printf "a\\0b" \u0000 end', 'broken \udcff surrogate', "printf 'x\u001b]52;c;Zm9v\u0007'"];
    commands.forEach((command, i) => call(data, 'sess-nul', `n${i}`, T + i * 1000, T + i * 1000 + 500, { command, tool_name: i === 0 ? 'Bash\u0000' : 'Bash' }));
    await reduce({ dataDir: data, session: 'sess-nul', db: url, env: { CORDON_MACHINE: 'ci-1' } });
    expect((await query<{ command: string; tool_name: string }>(url, 'select command, tool_name from tool_calls order by seq')).map((r) => [r.command, r.tool_name])).toEqual([
      ['printf "a\\0b" \ufffd end', 'Bash\ufffd'],
      ['broken \ufffd surrogate', 'Bash'],
      // Controls other than NUL are text PostgreSQL keeps; they are escaped where they are printed.
      ["printf 'x\u001b]52;c;Zm9v\u0007'", 'Bash'],
    ]);
  });

  it('the machine defaults to the host name; another machine cannot replace a session it does not hold', async () => {
    const url = await cluster.createDatabase(`t${++dbCount}`);
    call(data, 'shared-id', 'k', T, T + 10);
    await reduce({ dataDir: data, session: 'shared-id', db: url, env: {} });
    expect(await query(url, 'select machine from sessions')).toEqual([{ machine: hostname() }]);
    await expect(reduce({ dataDir: data, session: 'shared-id', db: url, env: { CORDON_MACHINE: 'other' } })).rejects.toMatchObject({ code: ERROR_CODES.DB_ERROR });
    expect(await query(url, 'select machine from tool_calls')).toEqual([{ machine: hostname() }]);
  });

  it('refuses a database with foreign tables or newer migrations, leaving it unchanged; errors never carry the password', async () => {
    const url = await cluster.createDatabase(`t${++dbCount}`);
    await query(url, 'create table theirs (x int)');
    call(data, 's', 'k', T, T + 10);
    await expect(reduce({ dataDir: data, db: url, env: {} })).rejects.toThrow(/not cordon's telemetry database/);
    expect((await query<{ table_name: string }>(url, `select table_name from information_schema.tables where table_schema = 'public'`)).map((r) => r.table_name)).toEqual(['theirs']);

    const newer = await cluster.createDatabase(`t${++dbCount}`);
    await reduce({ dataDir: data, db: newer, env: {} });
    await query(newer, `insert into kysely_migration (name, timestamp) values ('0099_from_the_future', '2030-01-01')`);
    await expect(reduce({ dataDir: data, db: newer, env: {} })).rejects.toThrow(/written by a newer cordon/);

    const wrong = cluster.url(`t${dbCount}`).replace(encodeURIComponent(cluster.password), 'not-the-Password-42');
    const error = await reduce({ dataDir: data, db: wrong, env: {} }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: ERROR_CODES.DB_ERROR });
    expect((error as Error).message).toMatch(/password authentication failed/);
    expect(JSON.stringify(error) + (error as Error).message).not.toContain('not-the-Password-42');
    expect(redactUrl('postgresql://u:p%40ss@h/db?password=x')).toBe('postgresql://***@h/db?password=***');
    expect(resolveDbTarget(undefined, '/d/telemetry.sqlite3', { CORDON_DB: ' ' })).toBe('/d/telemetry.sqlite3');
    expect(resolveDbTarget('flag', '/d', { CORDON_DB: 'env' })).toBe('flag');
  });

  it('analyze reads the PostgreSQL store and reports exactly what it reports from SQLite', async () => {
    const url = await cluster.createDatabase(`t${++dbCount}`);
    for (const [s, base] of [['a', T], ['b', T + 60_000]] as const) {
      for (let c = 0; c < 12; c++) call(data, `sess-${s}`, `k${c}`, base + c * 1000, base + c * 1000 + 600, { command: c % 4 === 0 ? 'npm test' : `git status ${c}` });
      samples(data, `sess-${s}`, Array.from({ length: 60 }, (_, i) => ({ t: base + i * 200, mb: 200 + ((i * 37) % 150), cpu: (i * 13) % 100 })));
      marker(data, `sess-${s}`, 'session_end', base + 13_000);
    }
    const fromSqlite = await analyze({ dataDir: data, all: true, env: {} });
    const fromPg = await analyze({ dataDir: data, all: true, db: url, env: {} });
    expect(fromPg.db).not.toContain(cluster.password);
    expect([...fromPg.reduced].sort()).toEqual(['sess-a', 'sess-b']);
    expect([...fromSqlite.reduced].sort()).toEqual(['sess-a', 'sess-b']);
    const strip = (r: Record<string, unknown>) => JSON.parse(JSON.stringify({ ...r, generated_at: 0, db: 0, reduced: 0 }, (k, v) => (k === 'reduced_at' || k === 'machine' ? 0 : v)));
    expect(fromPg.sessions.length).toBe(2);
    expect(strip(fromPg as never)).toEqual(strip(fromSqlite as never));
  });

  it('8 processes on two machines write one database at once: no lost or duplicated rows', async () => {
    const url = await cluster.createDatabase(`t${++dbCount}`);
    const sandbox = makeSandbox('cordon-fleet-');
    try {
      const SESSIONS = 4;
      const CALLS = 150;
      const runs = Array.from({ length: 8 }, (_, p) => {
        const machine = p % 2 === 0 ? 'machine-a' : 'machine-b';
        const dir = sandbox.dir(`data-${p}`);
        for (let s = 0; s < SESSIONS; s++) {
          const id = `${machine}-p${p}-s${s}`;
          for (let c = 0; c < CALLS; c++) call(dir, id, `k${c}`, T + c * 10, T + c * 10 + 5);
          samples(dir, id, Array.from({ length: 50 }, (_, i) => ({ t: T + i * 30, mb: 100 + i })));
        }
        return runCordon(['reduce', '--all', '--json'], { env: { ...sandbox.env, CORDON_DATA_DIR: dir, CORDON_DB: url, CORDON_MACHINE: machine } });
      });
      const results = await Promise.all(runs);
      for (const r of results) {
        expect(r.stderr).not.toContain(cluster.password);
        expect(r.exitCode, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).db).not.toContain(cluster.password);
      }
      expect(await query(url, 'select machine, count(*)::int as n from sessions group by machine order by machine')).toEqual([
        { machine: 'machine-a', n: 4 * SESSIONS },
        { machine: 'machine-b', n: 4 * SESSIONS },
      ]);
      expect(await query(url, 'select count(*)::int as n, count(distinct (session_id, seq))::int as d from tool_calls')).toEqual([{ n: 8 * SESSIONS * CALLS, d: 8 * SESSIONS * CALLS }]);
      expect(await query(url, 'select count(*)::int as n from samples')).toEqual([{ n: 8 * SESSIONS * 50 }]);
      expect(await query(url, `select count(*)::int as n from tool_calls t join sessions s using (session_id) where t.machine <> s.machine or s.session_id not like t.machine || '-%'`)).toEqual([{ n: 0 }]);
      expect((await query<{ name: string }>(url, 'select name from kysely_migration')).length).toBe(Object.keys(TELEMETRY_MIGRATIONS).length);
    } finally {
      sandbox.cleanup();
    }
  }, 180_000);
});
