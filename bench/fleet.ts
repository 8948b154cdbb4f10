/**
 * `npm run bench:fleet`: 100 sessions × 1,000 tool calls (plus 2,000 samples each)
 * recorded as marker and sample files, then reduced by `reduce --all` into the embedded SQLite
 * file (WAL, as `cordon reduce` opens it) and into a PostgreSQL database of a throwaway local
 * cluster (initdb + pg_ctl on a loopback port, as test/support/postgres.ts starts it, fsync off
 * as a test cluster). Prints, side by side, the wall time of each reduction (reading and pairing
 * the files included: the same work for both stores), the rows written (sessions + calls +
 * samples) and rows per second. The PostgreSQL row count is checked against the expected total.
 * Needs initdb/pg_ctl (scripts/test-prepare.sh installs them).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { formatSample } from '../packages/host/src/telemetry/sampler/sample.js';
import { sessionDir } from '../packages/host/src/telemetry/session-dir.js';
import { reduce } from '../packages/host/src/telemetry/reduce/index.js';
import { pgUnavailable, startPgCluster } from '../test/support/postgres.js';

const SESSIONS = 100;
const CALLS = 1_000;
const SAMPLES = 2_000;
const T0 = 1_800_000_000_000;

/** Writes the sessions' markers.jsonl and samples.jsonl in the hot path's formats. */
function record(dataDir: string): void {
  for (let s = 0; s < SESSIONS; s++) {
    const id = `fleet-${String(s).padStart(3, '0')}`;
    const dir = sessionDir(dataDir, id);
    mkdirSync(dir, { recursive: true });
    const t0 = T0 + s * 100_000_000;
    const lines: string[] = [];
    const base = { v: 1, session_id: id, agent: 'claude-code', hook_overhead_ms: 3, hook_pid: 4242, agent_pid: 77 };
    for (let c = 0; c < CALLS; c++) {
      const tool = { call_key: `k${c}`, call_key_source: 'agent', tool_name: 'Bash', tool: 'shell', command: `npm test -- shard ${c % 17}` };
      lines.push(JSON.stringify({ ...base, event: 'tool_start', native_event: 'PreToolUse', ts: t0 + c * 500, ...tool }));
      lines.push(JSON.stringify({ ...base, event: 'tool_end', native_event: 'PostToolUse', ts: t0 + c * 500 + 300, exit_status: 'ok', ...tool }));
    }
    writeFileSync(join(dir, 'markers.jsonl'), lines.join('\n') + '\n');
    let samples = '';
    for (let i = 0; i < SAMPLES; i++) samples += formatSample(t0 + i * 250, { rssBytes: (200 + (i % 50)) * 2 ** 20, cpuPct: (i * 13) % 100, nProcs: 3, partial: false, rootAlive: true });
    writeFileSync(join(dir, 'samples.jsonl'), samples);
  }
}

async function timed(dataDir: string, db: string): Promise<number> {
  const start = process.hrtime.bigint();
  await reduce({ dataDir, all: true, db, env: { CORDON_MACHINE: 'bench' } });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const why = pgUnavailable();
  if (why) {
    console.error(`bench:fleet needs PostgreSQL: ${why}`);
    process.exitCode = 2;
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'cordon-bench-fleet-'));
  const cluster = await startPgCluster();
  try {
    const dataDir = join(root, 'data');
    record(dataDir);
    const rows = SESSIONS * (1 + CALLS + SAMPLES);
    console.log(`bench:fleet, Node ${process.version}: ${SESSIONS} sessions × ${CALLS} calls (+ ${SAMPLES} samples each) = ${rows.toLocaleString('en')} rows; ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}`);
    const sqliteMs = await timed(dataDir, join(root, 'telemetry.sqlite3'));
    const url = await cluster.createDatabase('fleet');
    const pgMs = await timed(dataDir, url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const counted = (await client.query('select (select count(*) from sessions)::int + (select count(*) from tool_calls)::int + (select count(*) from samples)::int as n')).rows[0].n as number;
    await client.end();
    if (counted !== rows) throw new Error(`PostgreSQL holds ${counted} rows, expected ${rows}`);
    const line = (name: string, ms: number) => `${name.padEnd(12)}${(ms / 1000).toFixed(2).padStart(9)} s${Math.round(rows / (ms / 1000)).toLocaleString('en').padStart(14)} rows/s`;
    console.log(`${'store'.padEnd(12)}${'time'.padStart(11)}${'throughput'.padStart(21)}`);
    console.log(line('SQLite', sqliteMs));
    console.log(line('PostgreSQL', pgMs));
    console.log(`PostgreSQL / SQLite time: ${(pgMs / sqliteMs).toFixed(2)}`);
  } finally {
    cluster.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
