/**
 * `npm run bench:reduce`: what one `cordon reduce` costs at 1k, 10k and 100k records (markers +
 * samples of one session, half each), side by side with the Python reference reducer
 * (uncoalesced/cordon) on the same files, in one run.
 *
 * Each size gets real session directories written in the hook's and the sampler's formats
 * (`markers.jsonl` lines as `appendMarker` writes them, `samples.jsonl` lines from the sampler's
 * own `formatSample`, a `sampler.jsonl` start/stop pair): `session_start`, tool_start/tool_end
 * pairs of mixed tools (one call in seven shorter than a tick), `session_end`, and a sample
 * every 250 ms. Every timed run reduces a session not stored before into a database that already
 * exists (the common case: `cordon reduce` after a session), through the built bin as users run
 * it (`node packages/host/bin/run.cjs reduce --session ID`, stdout to a file and checked).
 *
 * Variants, interleaved per round (BENCH_RUNS rounds, default 5; 3 at 100k; after one warm-up):
 * - `node -e 0`: the floor, Node's own start-up;
 * - `cordon reduce` without NODE_EXTRA_CA_CERTS (the row that counts: users do not have it) and
 *   with it (this machine sets it; Node 20 parses the file at every start);
 * - the Python reference, `python3 -m features.wrapper.cli reduce --run-dir DIR` (the interpreter
 *   itself, not a pyenv shim; its bytecode cached), from a checkout of uncoalesced/cordon at
 *   CORDON_REFERENCE_DIR (default `.cache/cordon-reference`; skipped, saying why, when absent). It
 *   reads the same two files, pairs and joins the same way, and writes `toolcalls.jsonl` +
 *   `summary.json` instead of SQLite;
 * - with BENCH_BEFORE_BIN set to another build's `bin/run.cjs` (say, the commit before a change),
 *   `cordon reduce (before)` runs that bin the same way, for before/after under the same load.
 *
 * Each run goes through GNU time (`/usr/bin/time -f`): CPU (user + sys) and peak RSS of the
 * process; wall is timed here around it. Prints medians, the ratio to the reference, the growth
 * ratios 10k/1k and 100k/10k, and the targets: 1k ≤ 300 ms wall and ≤ 80 MiB, 100k ≤ 150 MiB.
 * Needs a build (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Marker } from '../packages/host/src/telemetry/markers.js';
import { formatSample } from '../packages/host/src/telemetry/sampler/sample.js';
import { median, TIME, timedRun, type Run } from './timed-run.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(REPO, 'packages/host/bin/run.cjs');
const BEFORE_BIN = process.env.BENCH_BEFORE_BIN ? resolve(process.env.BENCH_BEFORE_BIN) : undefined;
const REFERENCE = resolve(process.env.CORDON_REFERENCE_DIR ?? join(REPO, '.cache/cordon-reference'));
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS) || 5);
const CA_FILE = process.env.NODE_EXTRA_CA_CERTS || '/etc/ssl/certs/ca-certificates.crt';
const INTERVAL_MS = 250;
const T0 = 1_800_000_000_000;
const TOOLS = [
  { tool_name: 'Bash', tool: 'shell', commands: ['npm test', 'git status', 'pytest -q', 'make -j4', 'ls -la'] },
  { tool_name: 'Read', tool: 'read', commands: ['/repo/src/index.ts', '/repo/package.json'] },
  { tool_name: 'Edit', tool: 'edit', commands: ['/repo/src/app.ts'] },
  { tool_name: 'Grep', tool: 'search', commands: ['TODO'] },
];

interface Variant {
  readonly name: string;
  /** Which row: `cordon` (no CA variable) is the one the targets and ratios use. */
  readonly key: 'floor' | 'cordon' | 'cordonCa' | 'before' | 'python';
  /** argv for session `i` of this size. */
  readonly argv: (i: number) => string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Throws when the output does not show the session reduced. */
  readonly check?: (stdout: string) => void;
}

/** Expected counts of a generated session of `records` records. */
function shape(records: number): { calls: number; markers: number; samples: number } {
  const markers = Math.floor(records / 2);
  const calls = Math.floor((markers - 2) / 2);
  return { calls, markers: 2 + 2 * calls, samples: records - (2 + 2 * calls) };
}

/**
 * Writes session `id` of `records` records into `dir` (created): markers as the hook writes them
 * (`JSON.stringify(marker)` per line, appendMarker's format), samples through the sampler's
 * formatter, one sampler start/stop pair.
 */
function writeSession(dir: string, id: string, records: number): void {
  const { calls, samples } = shape(records);
  mkdirSync(dir, { recursive: true });
  const span = samples * INTERVAL_MS;
  const slot = span / (calls + 1);
  const base = { v: 1, session_id: id, agent: 'claude-code', cwd: '/repo', agent_pid: 4100, hook_pid: 4200 } as const;
  const lines: string[] = [];
  const push = (m: Marker): void => void lines.push(JSON.stringify(m));
  push({ ...base, event: 'session_start', native_event: 'SessionStart', ts: T0 - 500.25, hook_overhead_ms: 41.2 });
  for (let c = 0; c < calls; c++) {
    const kind = TOOLS[c % TOOLS.length]!;
    const command = kind.commands[c % kind.commands.length]!;
    const start = T0 + c * slot + 10.125;
    // One call in seven ends before the next tick (no sample in its window).
    const end = start + (c % 7 === 3 ? 40 : slot * 0.6);
    const tool = { call_key: `toolu_${id}_${c}`, call_key_source: 'agent', tool_name: kind.tool_name, tool: kind.tool, command } as const;
    push({ ...base, ...tool, event: 'tool_start', native_event: 'PreToolUse', ts: start, hook_overhead_ms: 38.5 + (c % 10) });
    const failed = c % 11 === 5;
    push({
      ...base,
      ...tool,
      event: 'tool_end',
      native_event: failed ? 'PostToolUseFailure' : 'PostToolUse',
      ts: end,
      exit_status: failed ? 'failed' : 'ok',
      ...(kind.tool === 'shell' ? { exit_code: failed ? 1 : 0 } : {}),
      duration_ms: Math.round(end - start),
      hook_overhead_ms: 39.75,
    });
  }
  push({ ...base, event: 'session_end', native_event: 'SessionEnd', ts: T0 + span + 100.5, hook_overhead_ms: 40 });
  writeFileSync(join(dir, 'markers.jsonl'), lines.join('\n') + '\n', { mode: 0o600 });
  const sampleLines: string[] = [];
  for (let i = 0; i < samples; i++) {
    const phase = (i % 200) / 200;
    const mb = 180 + (phase > 0.3 && phase < 0.4 ? 400 * Math.sin((phase - 0.3) * 31.4) : 5 * Math.sin(i));
    sampleLines.push(formatSample(T0 + i * INTERVAL_MS, { rssBytes: mb * 2 ** 20, cpuPct: 5 + ((i * 13) % 40), nProcs: 3 + (i % 4), partial: i % 97 === 0, rootAlive: true }));
  }
  writeFileSync(join(dir, 'samples.jsonl'), sampleLines.join(''), { mode: 0o600 });
  writeFileSync(
    join(dir, 'sampler.jsonl'),
    `${JSON.stringify({ event: 'start', t: T0 - 400, pid: 4300, generation: 1, root_pid: 4100, interval_ms: INTERVAL_MS, idle_ms: 1_800_000, sampler: 'linux-proc' })}\n` +
      `${JSON.stringify({ event: 'stop', t: T0 + span + 200, pid: 4300, generation: 1, reason: 'stop-file', ticks: samples, tick_median_ms: 0.2, tick_p95_ms: 0.4 })}\n`,
    { mode: 0o600 },
  );
}

/** Runs `argv` once under GNU time; stdout goes to `out`. */
function measure(v: Variant, argv: string[], out: string): Run {
  const { run, output } = timedRun(v.name, argv, { env: v.env, cwd: v.cwd, out });
  v.check?.(output.toString('utf8'));
  return run;
}

function main(): void {
  if (!existsSync(join(REPO, 'packages/host/dist/commands/reduce.js'))) throw new Error('build first: npm run build');
  if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed to read each run's CPU time and peak RSS`);
  // The interpreter itself, not a version manager's shim (pyenv's is a shell script that costs more than the reduction).
  const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable); print(sys.version.split()[0])'], { encoding: 'utf8' });
  const [pythonExe, pythonVersion] = python.status === 0 ? python.stdout.trim().split('\n') : [];
  const haveReference = !!pythonExe && existsSync(join(REFERENCE, 'features/wrapper/reduce.py'));
  const sandbox = mkdtempSync(join(tmpdir(), 'cordon-bench-reduce-'));
  const results = new Map<number, Map<Variant['key'], Run[]>>();
  const names = new Map<Variant['key'], string>();
  try {
    for (const records of SIZES) {
      const { calls } = shape(records);
      const runs = records >= 100_000 ? Math.min(RUNS, Number(process.env.BENCH_RUNS) || 3) : RUNS;
      const dataDir = join(sandbox, `data-${records}`);
      const refDir = join(sandbox, `ref-${records}`);
      const sessionId = (i: number): string => `bench-${records}-${i}`;
      // Session 0 is the warm-up (it also creates and migrates the database).
      for (let i = 0; i <= runs; i++) {
        writeSession(join(dataDir, 'runs', sessionId(i)), sessionId(i), records);
        writeSession(join(dataDir, 'runs', `${sessionId(i)}-ca`), `${sessionId(i)}-ca`, records);
        if (BEFORE_BIN) writeSession(join(dataDir, 'runs', `${sessionId(i)}-before`), `${sessionId(i)}-before`, records);
        if (haveReference) cpSync(join(dataDir, 'runs', sessionId(i)), join(refDir, sessionId(i)), { recursive: true });
      }
      const env: NodeJS.ProcessEnv = { ...process.env, CORDON_DATA_DIR: dataDir, CORDON_CONFIG_DIR: join(sandbox, 'config'), CORDON_CACHE_DIR: join(sandbox, 'cache'), CORDON_MACHINE: 'bench' };
      for (const key of ['CORDON_DB', 'NODE_OPTIONS']) delete env[key];
      const withoutCa = { ...env };
      delete withoutCa.NODE_EXTRA_CA_CERTS;
      const withCa = { ...env, NODE_EXTRA_CA_CERTS: CA_FILE };
      const cordonCheck = (stdout: string): void => {
        if (!stdout.includes(`: ${calls} calls, `)) throw new Error(`cordon reduce did not report ${calls} calls:\n${stdout.slice(0, 500)}`);
      };
      // The two cordon rows each reduce their own copy of session i (a session not stored before).
      const variants: Variant[] = [
        { name: 'node -e 0', key: 'floor', argv: () => [process.execPath, '-e', '0'], env: withoutCa },
        { name: 'cordon reduce', key: 'cordon', argv: (i) => [process.execPath, BIN, 'reduce', '--session', sessionId(i)], env: withoutCa, check: cordonCheck },
        { name: 'cordon reduce (CA)', key: 'cordonCa', argv: (i) => [process.execPath, BIN, 'reduce', '--session', `${sessionId(i)}-ca`], env: withCa, check: cordonCheck },
      ];
      if (BEFORE_BIN) variants.push({ name: 'cordon reduce (before)', key: 'before', argv: (i) => [process.execPath, BEFORE_BIN, 'reduce', '--session', `${sessionId(i)}-before`], env: withoutCa, check: cordonCheck });
      if (haveReference) {
        variants.push({
          name: 'python reference',
          key: 'python',
          argv: (i) => [pythonExe!, '-m', 'features.wrapper.cli', 'reduce', '--run-dir', join(refDir, sessionId(i))],
          // Bytecode cached as an installed package has it (the warm-up writes __pycache__).
          env: (() => {
            const e = { ...withoutCa };
            delete e.PYTHONDONTWRITEBYTECODE;
            return e;
          })(),
          cwd: REFERENCE,
          check: (stdout) => {
            const n = (JSON.parse(stdout) as { n_toolcalls: number }).n_toolcalls;
            if (n !== calls) throw new Error(`python reference reduced ${n} calls, expected ${calls}`);
          },
        });
      }
      const bySize = new Map<Variant['key'], Run[]>();
      for (const v of variants) {
        names.set(v.key, v.name);
        bySize.set(v.key, []);
      }
      const out = join(sandbox, 'out.txt');
      for (let i = 0; i <= runs; i++) {
        for (const v of variants) {
          const run = measure(v, v.argv(i), out);
          if (i > 0) bySize.get(v.key)!.push(run);
        }
      }
      results.set(records, bySize);
    }
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
  report(results, names, haveReference, pythonVersion ? `Python ${pythonVersion}` : 'no python3');
}

function report(results: Map<number, Map<Variant['key'], Run[]>>, names: Map<Variant['key'], string>, haveReference: boolean, pythonVersion: string): void {
  const med = (runs: Run[] | undefined, k: keyof Run): number => (runs && runs.length ? median(runs.map((r) => r[k])) : NaN);
  const f = (x: number, d = 1): string => (Number.isFinite(x) ? x.toFixed(d) : '-');
  console.log(`cordon reduce vs the Python reference: medians per size (interleaved rounds after one warm-up), Node ${process.version}, ${pythonVersion || 'no python3'}, load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`);
  if (!haveReference) console.log(`(Python reference not run: no python3, or no checkout of uncoalesced/cordon at ${REFERENCE}: git clone https://github.com/uncoalesced/cordon ${REFERENCE}, or set CORDON_REFERENCE_DIR)`);
  console.log('');
  console.log('| records | command | runs | wall ms | CPU ms | peak RSS MiB | wall / python | CPU / python | RSS / python |');
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [records, bySize] of results) {
    const py = bySize.get('python');
    for (const [key, runs] of bySize) {
      const ratio = (k: keyof Run): string => (key === 'python' || !py ? '' : f(med(runs, k) / med(py, k), 2));
      console.log(`| ${records} | ${names.get(key)} | ${runs.length} | ${f(med(runs, 'wallMs'))} | ${f(med(runs, 'cpuMs'))} | ${f(med(runs, 'rssMiB'))} | ${ratio('wallMs')} | ${ratio('cpuMs')} | ${ratio('rssMiB')} |`);
    }
  }
  const sizes = [...results.keys()];
  if (sizes.length > 1) {
    console.log('');
    console.log('growth ratios (larger size / smaller size; 10.0 is linear):');
    console.log('');
    console.log('| command | sizes | wall | CPU | peak RSS |');
    console.log('|---|---|---:|---:|---:|');
    for (const key of names.keys()) {
      for (let i = 1; i < sizes.length; i++) {
        const a = results.get(sizes[i - 1]!)!.get(key);
        const b = results.get(sizes[i]!)!.get(key);
        const g = (k: keyof Run): string => f(med(b, k) / med(a, k), 2);
        console.log(`| ${names.get(key)} | ${sizes[i]}/${sizes[i - 1]} | ${g('wallMs')} | ${g('cpuMs')} | ${g('rssMiB')} |`);
      }
    }
  }
  console.log('');
  const small = results.get(1000)?.get('cordon');
  const large = results.get(100_000)?.get('cordon');
  if (small) {
    const wall = med(small, 'wallMs');
    const rss = med(small, 'rssMiB');
    console.log(`target 1k records (without NODE_EXTRA_CA_CERTS): wall ${f(wall)} ms ≤ 300 ${wall <= 300 ? 'met' : 'NOT met'}; peak RSS ${f(rss)} MiB ≤ 80 ${rss <= 80 ? 'met' : 'NOT met'}`);
  }
  if (large) {
    const rss = med(large, 'rssMiB');
    console.log(`target 100k records: peak RSS ${f(rss)} MiB ≤ 150 ${rss <= 150 ? 'met' : 'NOT met'}`);
  }
  for (const [records, bySize] of results) {
    const base = med(bySize.get('floor'), 'wallMs');
    const parts = (['cordon', 'before', 'python'] as const).filter((k) => bySize.has(k)).map((k) => `${names.get(k)} ${f(med(bySize.get(k), 'wallMs') - base)} ms`);
    console.log(`wall above node -e 0 (${f(base)} ms now) at ${records} records: ${parts.join(', ')}`);
  }
  const floor = results.get(sizes[0]!)?.get('floor');
  const ca = results.get(sizes[0]!)?.get('cordonCa');
  const noCa = results.get(sizes[0]!)?.get('cordon');
  if (floor && ca && noCa) console.log(`node -e 0 alone: ${f(med(floor, 'wallMs'))} ms; NODE_EXTRA_CA_CERTS (${CA_FILE}) added ${f(med(ca, 'wallMs') - med(noCa, 'wallMs'))} ms to cordon reduce at ${sizes[0]} records`);
}

main();
