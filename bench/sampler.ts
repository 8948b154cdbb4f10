/**
 * `npm run bench:sampler`: cost of the session sampler on a synthetic tree of 50 processes.
 *
 * One run, side by side:
 * - the real detached sampler (started through `ensureSampler`, as the hook starts it) samples the
 *   tree at 250 ms; its median and p95 tick time come from its own `stop` event and its CPU share
 *   from its `/proc/<pid>/stat` utime + stime over the steady-state window, measured from here;
 * - a reference reader that rescans every `/proc/<pid>/stat` per tick (how psutil-style samplers
 *   find children, research cordon-resource.md A.5) is timed in this process on the same tree;
 * - the Windows reader (@cordon/sampler-windows) timed under Wine on its own 50-process tree
 *   (bench/sampler-wine.ts), labelled as Wine.
 *
 * Targets (issue 5): median tick ≤ 1 ms, CPU ≤ 0.5 % of one core at 250 ms.
 * Environment: BENCH_SECONDS (steady-state window, default 30), CORDON_INTERVAL (default 250).
 * Needs the built host (`npm run build`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSampler, stopSampler } from '../packages/host/dist/telemetry/sampler/ensure.js';
import { readKernelUnits } from '../packages/host/dist/telemetry/sampler/linux/auxv.js';
import { parseProcStat } from '../packages/host/dist/telemetry/sampler/linux/proc-stat.js';
import { printWineRows } from './sampler-wine.js';

const SECONDS = Number(process.env.BENCH_SECONDS) || 30;
const WARMUP_MS = 3000;
const TREE = 50;
const TARGET_MEDIAN_MS = 1;
const TARGET_CPU_PCT = 0.5;

if (process.platform !== 'linux') {
  console.error('bench:sampler measures the /proc sampler and needs Linux');
  process.exit(2);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const units = readKernelUnits();
const buf = Buffer.allocUnsafe(4096);

function readStat(pid: number) {
  let fd = -1;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
    const n = readSync(fd, buf, 0, buf.length, 0);
    const s = parseProcStat(buf, n);
    return s ? { ...s } : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** Root (node) → 7 shells → 6 sleeps each: 1 + 7 + 42 = 50 processes, three levels deep. */
async function startTree(): Promise<ChildProcess> {
  const shells = 7;
  const perShell = (TREE - 1 - shells) / shells;
  const shellScript = Array.from({ length: perShell }, () => 'sleep 3600 &').join(' ') + ' wait';
  const code = `const {spawn}=require('node:child_process');for(let i=0;i<${shells};i++)spawn('sh',['-c',${JSON.stringify(shellScript)}],{stdio:'ignore'});setInterval(()=>{},1e6)`;
  const root = spawn(process.execPath, ['-e', code], { stdio: 'ignore', detached: true });
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    if (rescanTree(root.pid!) === TREE) return root;
  }
  throw new Error(`synthetic tree did not reach ${TREE} processes`);
}

/** The reference: a full rescan of every /proc/<pid>/stat, children found by ppid. */
function rescanTree(rootPid: number): number {
  const kids = new Map<number, number[]>();
  let rss = 0;
  const stats = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const c = name.charCodeAt(0);
    if (c < 0x30 || c > 0x39) continue;
    const s = readStat(Number(name));
    if (!s) continue;
    stats.set(Number(name), s.rssPages);
    const list = kids.get(s.ppid);
    if (list) list.push(Number(name));
    else kids.set(s.ppid, [Number(name)]);
  }
  const stack = [rootPid];
  let n = 0;
  while (stack.length) {
    const pid = stack.pop()!;
    n++;
    rss += stats.get(pid) ?? 0;
    for (const k of kids.get(pid) ?? []) stack.push(k);
  }
  return rss > 0 ? n : 0;
}


/** The last pid the kernel allocated (`/proc/loadavg` field 5). */
function lastPid(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ')[4]);
}

function pidMax(): number {
  return Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
}

function quantiles(xs: number[]): { median: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]! };
}

function events(dir: string): Array<Record<string, number | string>> {
  try {
    return readFileSync(join(dir, 'sampler.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'cordon-bench-sampler-'));
  const dir = join(root, 'session');
  const env = { ...process.env, CORDON_DATA_DIR: join(root, 'data'), CORDON_INTERVAL: process.env.CORDON_INTERVAL ?? '250' };
  const tree = await startTree();
  try {
    const started = ensureSampler({ dir, rootPid: tree.pid!, env });
    if (!started.started) throw new Error(`sampler did not start: ${JSON.stringify(started)}`);
    const samplerPid = started.pid;
    for (let i = 0; i < 100 && !events(dir).some((e) => e.event === 'start'); i++) await sleep(50);
    await sleep(WARMUP_MS);
    const cpu0 = readStat(samplerPid)!.cpuTicks;
    const pid0 = lastPid();
    const wall0 = performance.now();
    await sleep(SECONDS * 1000);
    const cpu1 = readStat(samplerPid)!.cpuTicks;
    const pid1 = lastPid();
    const wallS = (performance.now() - wall0) / 1000;
    stopSampler(dir);
    let stop: Record<string, number | string> | undefined;
    for (let i = 0; i < 100 && !stop; i++) {
      await sleep(50);
      stop = events(dir).find((e) => e.event === 'stop');
    }
    if (!stop) throw new Error('sampler did not stop');
    const samples = readFileSync(join(dir, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { n_procs: number });
    const procs = quantiles(samples.map((s) => s.n_procs)).median;
    const cpuPct = ((cpu1 - cpu0) / units.clockTicks / wallS) * 100;

    const rescan: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      rescanTree(tree.pid!);
      rescan.push(performance.now() - t0);
    }
    const ref = quantiles(rescan);
    const median = Number(stop.tick_median_ms);
    const p95 = Number(stop.tick_p95_ms);
    const row = (name: string, value: string, target: string, ratio: string) => console.log(`${name.padEnd(34)} ${value.padStart(12)} ${target.padStart(10)} ${ratio.padStart(8)}`);
    console.log(`sampler bench: ${procs} processes in the tree (${readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length} on the system), interval ${env.CORDON_INTERVAL} ms, ${Number(stop.ticks)} ticks, ${wallS.toFixed(1)} s steady state`);
    // New pids elsewhere on the machine cost the sampler a probe each (and load slows every tick): say how busy it was.
    console.log(`machine: load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}, ${((pid1 - pid0 + pidMax() * Number(pid1 < pid0)) / wallS).toFixed(1)} pids allocated per second during the run`);
    row('metric', 'measured', 'target', 'ratio');
    row('tick time, median (ms)', median.toFixed(3), `≤ ${TARGET_MEDIAN_MS}`, (median / TARGET_MEDIAN_MS).toFixed(2));
    row('tick time, p95 (ms)', p95.toFixed(3), '', '');
    row('sampler CPU (% of one core)', cpuPct.toFixed(3), `≤ ${TARGET_CPU_PCT}`, (cpuPct / TARGET_CPU_PCT).toFixed(2));
    row('reference full rescan, median (ms)', ref.median.toFixed(3), '', (median / ref.median).toFixed(2));
    row('reference full rescan, p95 (ms)', ref.p95.toFixed(3), '', (p95 / ref.p95).toFixed(2));
    const ok = median <= TARGET_MEDIAN_MS && cpuPct <= TARGET_CPU_PCT && procs === TREE;
    console.log(ok ? 'within targets' : 'OUTSIDE TARGETS');
    await printWineRows(row);
  } finally {
    try {
      process.kill(-tree.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
