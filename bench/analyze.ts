/**
 * `npm run bench:analyze`: `cordon analyze` over 100 and 1,000 synthetic sessions of 10,000
 * samples each (1,000,000 and 10,000,000 samples) and 50 tool calls each, stored in real SQLite
 * files through the telemetry schema's migrations (rows inserted with raw prepared statements so
 * setting up is quick; the analysis reads them exactly as it reads reduced sessions). Each size
 * is analysed in a fresh child process, which reports its wall time and peak RSS (maxRSS): the
 * analysis alone, no setup. Prints both, samples per second, and the 1,000 / 100 ratios: linear
 * growth gives a time ratio near 10 and a memory ratio well under 10 (one session in memory at a
 * time). Target: 1,000 sessions under 30 s and 1 GB. Each size is analysed twice, the child
 * without `NODE_EXTRA_CA_CERTS` (the target row) and with it (bench/ca-env.ts).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { analyze } from '../packages/host/src/telemetry/analyze/index.js';
import { renderJson } from '../packages/host/src/telemetry/analyze/report/text.js';
import { openTelemetryDb, TELEMETRY_DB_FILE } from '../packages/host/src/telemetry/reduce/index.js';
import { caModes, type CaMode } from './ca-env.ts';

const SAMPLES_PER_SESSION = 10_000;
const CALLS_PER_SESSION = 50;
const INTERVAL_MS = 250;
const T0 = 1_800_000_000_000;
const COMMANDS = ['pytest -q', 'npm test', 'git status', 'pip install -e .', 'python3 -c "print(1)"', 'ls -la', 'make -j4', 'cat README.md'];

/** Builds `<dir>/telemetry.sqlite3` holding `sessions` sessions. */
async function build(dir: string, sessions: number): Promise<void> {
  const path = join(dir, TELEMETRY_DB_FILE);
  await (await openTelemetryDb(path)).close();
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const session = db.prepare(`insert into sessions (session_id, dir_name, agent, reduced_at, first_ts, last_ts, ended, n_markers, bad_markers, n_samples, bad_samples, n_toolcalls, unpaired_starts, orphan_ends, denied_calls, short_calls, partial_samples, span_ms, tool_time_ms, sampler_starts, sampler_stop_reasons) values (?, ?, ?, ?, ?, ?, 1, ?, 0, ?, 0, ?, 0, 0, 0, 0, 0, ?, 0, 1, '[]')`);
  const call = db.prepare(`insert into tool_calls (session_id, seq, call_key, tool_name, tool, command, start_ts, end_ts, duration_ms, peak_memory_mb, avg_memory_mb, avg_cpu_pct, n_samples) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const sample = db.prepare(`insert into samples (session_id, seq, t, mem_mb, cpu_pct, n_procs, partial) values (?, ?, ?, ?, ?, 3, 0)`);
  const span = (SAMPLES_PER_SESSION - 1) * INTERVAL_MS;
  const slot = span / CALLS_PER_SESSION;
  db.transaction(() => {
    for (let s = 0; s < sessions; s++) {
      const id = `bench-${String(s).padStart(5, '0')}`;
      const t0 = T0 + s * 10_000_000;
      session.run(id, id, s % 3 === 0 ? 'codex' : 'claude-code', Date.now(), t0, t0 + span, CALLS_PER_SESSION * 2, SAMPLES_PER_SESSION, CALLS_PER_SESSION, span);
      for (let c = 0; c < CALLS_PER_SESSION; c++) {
        const start = t0 + c * slot + 2000;
        const end = start + slot * 0.4;
        const command = c >= 10 && c < 13 ? 'npm test' : COMMANDS[(c * 7 + s) % COMMANDS.length]!;
        call.run(id, c + 1, `k${c}`, c % 5 === 4 ? 'Read' : 'Bash', c % 5 === 4 ? 'read' : 'shell', command, start, end, end - start, 200 + ((c * 37) % 500), 220, 12, Math.round((end - start) / INTERVAL_MS));
      }
      for (let i = 0; i < SAMPLES_PER_SESSION; i++) {
        const t = t0 + i * INTERVAL_MS;
        const phase = (i % 200) / 200;
        sample.run(id, i + 1, t, 180 + (phase > 0.3 && phase < 0.4 ? 400 * Math.sin((phase - 0.3) * 31.4) : 5 * Math.sin(i)), 5 + ((i * 13) % 40));
      }
    }
  })();
  db.close();
}

interface ChildResult {
  sessions: number;
  samples: number;
  ms: number;
  /** User + system CPU time of the analysis, ms: on a loaded machine the honest cost. */
  cpuMs: number;
  maxRssMb: number;
  jsonBytes: number;
}

async function child(dir: string): Promise<void> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const report = await analyze({ dataDir: dir, all: true, reduceFirst: false });
  const json = renderJson(report);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const result: ChildResult = { sessions: report.pooled.n_sessions, samples: report.pooled.n_samples, ms, cpuMs: (used.user + used.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, jsonBytes: json.length };
  process.send!(result);
}

function measure(dir: string, env: NodeJS.ProcessEnv): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = fork(new URL(import.meta.url).pathname, ['--child', dir], { env, stdio: 'inherit' });
    p.once('message', (m) => resolve(m as ChildResult));
    p.once('exit', (code) => (code ? reject(new Error(`analysis child exited ${code}`)) : undefined));
  });
}

async function main(): Promise<void> {
  // The child times the analysis after its own start-up, so NODE_EXTRA_CA_CERTS (a start-up cost)
  // should not move these figures; each size is analysed in both environments to show it.
  const modes = caModes(process.env);
  const results = new Map<CaMode, ChildResult[]>(modes.map((mode) => [mode, []]));
  for (const sessions of [100, 1000]) {
    const dir = mkdtempSync(join(tmpdir(), `cordon-bench-analyze-${sessions}-`));
    try {
      const t = performance.now();
      await build(dir, sessions);
      console.log(`built ${sessions} sessions × ${SAMPLES_PER_SESSION} samples in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      for (const mode of modes) {
        const r = await measure(dir, mode.env);
        results.get(mode)!.push(r);
        console.log(`  ${mode.label.padEnd(15)} analyze ${r.sessions} sessions, ${r.samples.toLocaleString('en')} samples: ${(r.ms / 1000).toFixed(2)} s wall, ${(r.cpuMs / 1000).toFixed(2)} s CPU (${Math.round(r.samples / (r.cpuMs / 1000)).toLocaleString('en')} samples per CPU second), peak RSS ${r.maxRssMb.toFixed(0)} MB, JSON ${(r.jsonBytes / 2 ** 20).toFixed(1)} MiB`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores (wall time grows with the load; CPU time does not)`);
  for (const mode of modes) {
    const [small, big] = results.get(mode)! as [ChildResult, ChildResult];
    const label = `${mode.label}${mode.target ? '' : ', context'}`;
    console.log(`${label}: 1000 / 100 sessions: wall ×${(big.ms / small.ms).toFixed(2)}, CPU ×${(big.cpuMs / small.cpuMs).toFixed(2)} (linear: ~10), peak RSS ×${(big.maxRssMb / small.maxRssMb).toFixed(2)}`);
    console.log(`${label}: target for 1000 sessions: < 30 s and < 1 GB: wall ${big.ms < 30_000 ? 'met' : 'NOT met'}, CPU ${big.cpuMs < 30_000 ? 'met' : 'NOT met'}, memory ${big.maxRssMb < 1024 ? 'met' : 'NOT met'}`);
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!);
// `--build N DIR` only writes the database (to profile the analysis on it by hand).
else if (process.argv[2] === '--build') await build(process.argv[4]!, Number(process.argv[3]));
else await main();
