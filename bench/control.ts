/**
 * `npm run bench:control`: the wall time `cordon control run` adds over spawning the same command
 * directly (target ≤ 5 ms with cgroup creation and removal), in one run, interleaved:
 *
 * - in-process, BENCH_RUNS (default 40, after 3 warm-ups) rounds of
 *   - `direct`: spawn `true` and wait for it;
 *   - `control run`: the library call behind the command (`controlRun`: hint, request, the
 *     `enforce` hook with @cordon/cgroup-linux tapped, the command, the run record);
 *   - `cgroup join`: the file-system part of enforcement: create a cgroup in a writable cgroup v2
 *     mount, start `true` through the launcher that moves itself into it and execs, remove the
 *     cgroup. On this machine's controller-less v2 mount (hybrid) no limit applies, but every
 *     file-system step of a real run does;
 * - as processes (BENCH_CLI_RUNS, default 15): `true`, `node -e 0`, a Node process that only spawns
 *   `true` and waits, through `node:child_process` and through libuv's process handle as
 *   `control run` does (the floor of any Node program that runs a command: a fork of Node), and
 *   `cordon control run -- true` (the fast route of bin/run.cjs), each
 *   without NODE_EXTRA_CA_CERTS in its env (the target row) and with it (bench/ca-env.ts), which
 *   Node 20 parses at every start; these rows include Node's own start-up and print their wall
 *   and CPU (user + sys of the process and its children, which a loaded machine inflates less)
 *   and their ratio to `node -e 0`.
 *
 * Prints medians, the added time (median of the per-round differences) against the target, and
 * the load average, since on a shared machine the spawns themselves dominate. Needs a build (`npm run build`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bashTimed } from './bash-timed.ts';
import { caFile, caModes } from './ca-env.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(REPO, 'packages/host/bin/run.cjs');
const RUNS = Math.max(10, Number(process.env.BENCH_RUNS) || 40);
const CLI_RUNS = Math.max(5, Number(process.env.BENCH_CLI_RUNS) || 15);
const WARMUP = 3;
const TARGET_MS = 5;
/** `cordon control run -- true` as a process, wall time over `node -e 0`'s. */
const CLI_TARGET = 1.25;
const CA_FILE = caFile();

const { controlRun } = (await import(join(REPO, 'packages/host/dist/control/run.js'))) as typeof import('../packages/host/src/control/run.js');
const { loadHostDirect } = (await import(join(REPO, 'packages/host/dist/bus/load-host.js'))) as typeof import('../packages/host/src/bus/load-host.js');
const { LAUNCHER } = (await import(join(REPO, 'plugins/cgroup-linux/dist/enforce.js'))) as typeof import('../plugins/cgroup-linux/src/enforce.js');
const { findPlacement } = (await import(join(REPO, 'plugins/cgroup-linux/dist/cgroup/detect.js'))) as typeof import('../plugins/cgroup-linux/src/cgroup/detect.js');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Spawns argv with stdio ignored (fd 3 a pipe when `fd3`), resolves when it has exited. */
function run(argv: readonly string[], fd3 = false): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: fd3 ? ['ignore', 'ignore', 'ignore', 'pipe'] : 'ignore' });
    child.once('error', fail);
    child.once('exit', () => done());
  });
}

const sandbox = mkdtempSync(join(tmpdir(), 'cordon-bench-control-'));
const dataDir = join(sandbox, 'data');
mkdirSync(dataDir);
writeFileSync(
  join(dataDir, 'package.json'),
  JSON.stringify({ name: '@cordon/host', private: true, dependencies: {}, oclif: { schema: 1, plugins: [{ name: '@cordon/cgroup-linux', root: join(REPO, 'plugins/cgroup-linux'), type: 'link' }] } }),
);
const env: NodeJS.ProcessEnv = { ...process.env, CORDON_DATA_DIR: dataDir, CORDON_CACHE_DIR: join(sandbox, 'cache'), CORDON_CONFIG_DIR: join(sandbox, 'config') };
const host = await loadHostDirect(env);
const sink = { write: () => true };

// Where the cgroup file-system part can be measured: the v2 mount cordon would use, writable.
const placement = findPlacement();
const v2 = placement.anchor ?? placement.mounts.v2?.mountPoint;
let cgroupBase: string | undefined;
if (v2) {
  try {
    cgroupBase = join(v2, `cordon-bench-${process.pid}`);
    mkdirSync(cgroupBase);
  } catch {
    cgroupBase = undefined;
  }
}

const rows: Record<'direct' | 'controlRun' | 'cgroup', number[]> = { direct: [], controlRun: [], cgroup: [] };
// This process's own CPU (user + sys, ms) per round: what cordon's code costs, whatever the load.
const cpu: Record<'direct' | 'controlRun' | 'cgroup', number[]> = { direct: [], controlRun: [], cgroup: [] };
let n = 0;
for (let i = 0; i < WARMUP + RUNS; i++) {
  const timed = async (key: keyof typeof rows, fn: () => Promise<unknown>): Promise<void> => {
    const t = performance.now();
    const c = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(c);
    if (i >= WARMUP) {
      rows[key].push(performance.now() - t);
      cpu[key].push((used.user + used.system) / 1000);
    }
  };
  await timed('direct', () => run(['true']));
  await timed('controlRun', () => controlRun({ argv: ['true'], cwd: process.cwd(), env, hooks: host.hooks, dataDir, log: host.log, stderr: sink }));
  if (cgroupBase) {
    await timed('cgroup', async () => {
      const dir = join(cgroupBase!, `run-${n++}`);
      mkdirSync(dir);
      await run(['/bin/sh', '-c', LAUNCHER, join(dir, 'cgroup.procs'), 'true'], true);
      rmdirSync(dir);
    });
  }
}
if (cgroupBase) rmdirSync(cgroupBase);

/**
 * Runs argv under bash RUNS times interleaved with the others; per run the wall ms (from
 * $EPOCHREALTIME) and the CPU ms of the process and its children (bash `times`, user + sys).
 */
function cliRows(variants: Array<{ name: string; argv: string[]; env: NodeJS.ProcessEnv }>): Map<string, { wall: number[]; cpu: number[] }> {
  const out = new Map(variants.map((v) => [v.name, { wall: [] as number[], cpu: [] as number[] }]));
  for (let i = 0; i < WARMUP + CLI_RUNS; i++) {
    for (const v of variants) {
      const r = bashTimed('"$@" >/dev/null 2>&1', v.argv, { env: v.env });
      if (r.status !== 0) throw new Error(`${v.name} failed (${r.status})`);
      if (i >= WARMUP) {
        out.get(v.name)!.wall.push(r.wallMs);
        out.get(v.name)!.cpu.push(r.cpuMs);
      }
    }
  }
  return out;
}
const SPAWN_TRUE = "require('node:child_process').spawn('true', { stdio: 'inherit' })";
/** The same through libuv's process handle, in the calling convention of this Node's major (src/control/direct-spawn.ts). */
const SPAWN_TRUE_HANDLE = [
  "const b = process.binding('process_wrap'), p = new b.Process(), stdio = [0, 1, 2].map((fd) => ({ type: 'fd', fd }));",
  'p.onexit = () => p.close();',
  "const envPairs = Object.entries(process.env).map(([k, v]) => k + '=' + v);",
  "b.constants ? p.spawn('true', ['true'], undefined, envPairs, stdio, 0, undefined, undefined) : p.spawn({ file: 'true', args: ['true'], envPairs, stdio });",
].join(' ');
const modes = caModes(env);
const cli = cliRows([
  { name: 'true', argv: ['/bin/true'], env: modes[0]!.env },
  ...modes.flatMap((mode) => [
    { name: `node -e 0, ${mode.label}`, argv: [process.execPath, '-e', '0'], env: mode.env },
    { name: `node spawning true, ${mode.label}`, argv: [process.execPath, '-e', SPAWN_TRUE], env: mode.env },
    { name: `node spawning true (handle), ${mode.label}`, argv: [process.execPath, '-e', SPAWN_TRUE_HANDLE], env: mode.env },
    { name: `cordon control run -- true, ${mode.label}`, argv: [process.execPath, BIN, 'control', 'run', '--', 'true'], env: mode.env },
  ]),
]);
const records = readFileSync(join(dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n');
const enforced = records.some((l) => (JSON.parse(l) as { enforced: boolean }).enforced);
rmSync(sandbox, { recursive: true, force: true });

const f = (x: number): string => x.toFixed(2).padStart(8);
// Added time: the median of each round's difference to the direct spawn of the same round, which
// the machine's load at that moment affects alike.
const paired = (xs: number[]): number => median(xs.map((x, i) => x - rows.direct[i]!));
const direct = median(rows.direct);
const added = paired(rows.controlRun);
const fsPart = rows.cgroup.length ? paired(rows.cgroup) : undefined;
console.log(`cordon control run, Node ${process.version}: added wall time over spawning the command directly (${RUNS} interleaved rounds, medians, ms; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs)`);
console.log(`  direct spawn of true              ${f(direct)}`);
console.log(`  control run (library call)        ${f(median(rows.controlRun))}   added ${f(added)}   (${enforced ? 'enforced here' : 'unguarded here: no backend can enforce'})`);
if (fsPart !== undefined) console.log(`  cgroup create + join + remove     ${f(median(rows.cgroup))}   added ${f(fsPart)}   (in ${v2}${placement.reason ? ', no controllers' : ''})`);
else console.log('  cgroup create + join + remove     (no writable cgroup v2 mount here)');
const cpuAdded = median(cpu.controlRun.map((x, i) => x - cpu.direct[i]!));
const cpuFs = cpu.cgroup.length ? median(cpu.cgroup.map((x, i) => x - cpu.direct[i]!)) : 0;
console.log(`  cordon's own CPU per run (this process, user + sys): control run ${cpuAdded.toFixed(2)} ms, cgroup steps ${cpuFs.toFixed(2)} ms more than the direct spawn`);
const total = added + (enforced ? 0 : (fsPart ?? 0));
console.log(`added wall time${enforced ? '' : ' (control run + the cgroup file-system part)'}: ${total.toFixed(2)} ms; target ≤ ${TARGET_MS} ms: ${total <= TARGET_MS ? 'met' : 'NOT met'}`);
console.log(`\nas processes (${CLI_RUNS} interleaved rounds, medians, ms; Node's start-up included; CPU is user + sys with children), without NODE_EXTRA_CA_CERTS in the child env (the target row) and with it (${CA_FILE ?? 'no CA file here'})`);
const wallOf = (name: string): number => median(cli.get(name)!.wall);
const cpuOf = (name: string): number => median(cli.get(name)!.cpu);
console.log(`  ${''.padEnd(44)}${'wall'.padStart(8)}${'CPU'.padStart(8)}`);
console.log(`  ${'true'.padEnd(44)}${f(wallOf('true'))}${f(cpuOf('true'))}`);
for (const mode of modes) {
  const node = `node -e 0, ${mode.label}`;
  const viaChildProcess = `node spawning true, ${mode.label}`;
  const floor = `node spawning true (handle), ${mode.label}`;
  const run = `cordon control run -- true, ${mode.label}`;
  const ratios = (name: string) => `ratio to node -e 0 ${(wallOf(name) / wallOf(node)).toFixed(2)} wall, ${(cpuOf(name) / cpuOf(node)).toFixed(2)} CPU`;
  console.log(`  ${node.padEnd(44)}${f(wallOf(node))}${f(cpuOf(node))}`);
  console.log(`  ${viaChildProcess.padEnd(44)}${f(wallOf(viaChildProcess))}${f(cpuOf(viaChildProcess))}   ${ratios(viaChildProcess)} (through node:child_process)`);
  console.log(`  ${floor.padEnd(44)}${f(wallOf(floor))}${f(cpuOf(floor))}   ${ratios(floor)} (the floor: libuv's process handle, as control run)`);
  const verdict = mode.target ? ` (target ≤ ${CLI_TARGET}: ${wallOf(run) / wallOf(node) <= CLI_TARGET ? 'met' : 'NOT met'})` : ' (context)';
  console.log(`  ${run.padEnd(44)}${f(wallOf(run))}${f(cpuOf(run))}   ${ratios(run)}${verdict}; adds ${(wallOf(run) - wallOf('true')).toFixed(1)} ms over true, ${(cpuOf(run) - cpuOf(floor)).toFixed(1)} ms CPU over the floor`);
}
if (modes.length > 1) {
  const caCost = wallOf(`node -e 0, ${modes[1]!.label}`) - wallOf(`node -e 0, ${modes[0]!.label}`);
  console.log(`NODE_EXTRA_CA_CERTS adds ${caCost.toFixed(1)} ms to every Node start${process.env.NODE_EXTRA_CA_CERTS ? ' and is set in this environment' : ''}`);
}
