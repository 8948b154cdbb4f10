import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcTreeReader } from '../../../src/telemetry/sampler/linux/proc-tree.js';
import { tempDirForTest } from '../../../../../test/support/temp.js';
import { waitFor } from '../../../../../test/support/wait.js';

// Issue 28: the CPU of processes that live less than a tick is counted through their parents'
// reaped-children times, without counting twice what was seen; under an open-files limit every
// process is still counted (or the sample says partial); a `cordon control run` process is not
// counted, the command under it is.

const linux = process.platform === 'linux';
const REPO = resolve(fileURLToPath(new URL('../../../../../', import.meta.url)));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = 1024 * 1024;
const HZ = 100; // USER_HZ on Linux (getconf CLK_TCK)

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** Starts `sh -c script` in a process group of its own (the tree's root). */
function tree(script: string): ChildProcess {
  const c = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
  started.push(c);
  return c;
}

/** utime + stime + cutime + cstime of a live process, seconds. */
function totalCpuS(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / HZ;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Children of `pid` (CONFIG_PROC_CHILDREN). */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Reads the tree every 100 ms until `done()`, summing the CPU the readings report (cpuPct over
 * each reading's interval), seconds.
 */
async function countedCpu(reader: ProcTreeReader, done: () => boolean): Promise<number> {
  let total = 0;
  let last = performance.now();
  const deadline = Date.now() + 120_000;
  for (;;) {
    await sleep(100);
    const r = reader.read();
    const now = performance.now();
    total += (r.cpuPct / 100) * ((now - last) / 1000);
    last = now;
    if (done() || Date.now() > deadline) return total;
  }
}

/**
 * Starts `script` as a tree whose first child is a worker shell, samples the tree until the worker
 * has `exec`ed its final `sleep`, and returns the CPU the samples counted and the worker's real
 * CPU (its own plus its reaped children's), seconds.
 */
async function workerCpu(script: string): Promise<{ counted: number; real: number }> {
  const root = tree(script);
  let worker: number | undefined;
  while (worker === undefined) {
    await sleep(10);
    worker = children(root.pid!)[0];
  }
  const reader = new ProcTreeReader(root.pid!);
  const counted = await countedCpu(reader, () => cmdline(worker!).startsWith('sleep'));
  await sleep(150);
  const real = totalCpuS(worker!);
  reader.close();
  return { counted, real };
}

describe.runIf(linux)('CPU of processes that exit between ticks', () => {
  it('is counted through the parent that reaped them (a build of many short compiler runs)', async () => {
    // A worker shell (a member, seen at the first tick) runs 40 short CPU-bound children, each
    // gone well within a tick, then sleeps: its cutime + cstime then hold all their CPU.
    const { counted, real } = await workerCpu(`sh -c 'i=0; while [ $i -lt 40 ]; do awk "BEGIN{for(j=0;j<1500000;j++)s+=j}"; i=$((i+1)); done; exec sleep 60' & wait`);
    expect(real).toBeGreaterThan(0.5);
    // Without the reaped-children times the samples held a small fraction of it (1.16 of 6.88 s).
    expect(counted).toBeGreaterThan(real * 0.85);
    expect(counted).toBeLessThan(real * 1.15 + 0.05);
  });

  it('does not count twice the CPU of a child seen while it ran and reaped afterwards', async () => {
    // A child burning CPU across several ticks (a member while it runs), then reaped by the worker.
    const burn = `${JSON.stringify(process.execPath)} -e "const t=process.cpuUsage(); while((process.cpuUsage(t).user)<900000){}"`;
    const { counted, real } = await workerCpu(`sh -c '${burn}; ${burn}; exec sleep 60' & wait`);
    expect(real).toBeGreaterThan(1.5);
    expect(counted).toBeGreaterThan(real * 0.85);
    expect(counted).toBeLessThan(real * 1.15 + 0.05);
  });
});

describe.runIf(linux)('an open-files limit', () => {
  // The reader runs in a child process whose open-files limit is 128, over a tree of 300 processes.
  const script = (options: string) => `
    import { ProcTreeReader } from ${JSON.stringify(pathToFileURL(join(REPO, 'packages/host/dist/telemetry/sampler/linux/proc-tree.js')).href)};
    const root = Number(process.argv[2]);
    const reader = new ProcTreeReader(root, ${options});
    const readings = [];
    for (let i = 0; i < 3; i++) { await new Promise((r) => setTimeout(r, 50)); readings.push(reader.read()); }
    console.log(JSON.stringify(readings.map((r) => ({ n: r.nProcs, partial: r.partial }))));
  `;
  const runLimited = (root: number, options: string): Array<{ n: number; partial: boolean }> => {
    const dir = tempDirForTest('cordon-nofile-');
    const file = join(dir, 'read.mjs');
    writeFileSync(file, script(options));
    return JSON.parse(execFileSync('sh', ['-c', `ulimit -n 128 && exec "$0" "$1" "$2"`, process.execPath, file, String(root)], { encoding: 'utf8' })) as Array<{ n: number; partial: boolean }>;
  };

  it('counts every process within the limit, or says the sample is partial', async () => {
    const root = tree('i=0; while [ $i -lt 299 ]; do sleep 60 & i=$((i+1)); done; wait');
    while (children(root.pid!).length < 299) await sleep(20);
    // Default: the descriptor budget follows the limit, and every process is counted.
    const fitted = runLimited(root.pid!, '{}');
    for (const r of fitted) expect(r).toEqual({ n: 300, partial: false });
    // A budget above the limit (as before the fix): processes that cannot be opened make the sample partial.
    const over = runLimited(root.pid!, '{ maxOpenFds: 4096 }');
    expect(over[0]!.n).toBeLessThan(300);
    expect(over[0]!.partial).toBe(true);
  });
});

describe.runIf(linux)('cordon control run inside the tree', () => {
  it('leaves out the control run process itself and counts the command it runs', async () => {
    const dir = tempDirForTest('cordon-own-control-');
    const entry = join(dir, 'host/bin/run.cjs');
    mkdirSync(join(dir, 'host/bin'), { recursive: true });
    // A stand-in for `<node> <…>/bin/run.cjs control run -- <command>`: holds 120 MiB itself and starts a command holding 60 MiB.
    // Each process says when its memory is touched, so the reading below waits for that, not for a total.
    const hold = (n: number, ready: string) => `const b = Buffer.alloc(${n} * 2 ** 20, 1); require('node:fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => b.length, 1000);`;
    const ready = [join(dir, 'command-ready'), join(dir, 'control-ready')];
    writeFileSync(entry, `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(hold(60, ready[0]!))}], { stdio: 'ignore' });\n${hold(120, ready[1]!)}\n`);
    const root = tree(`${JSON.stringify(process.execPath)} ${JSON.stringify(entry)} control run -- sleep 1 & wait`);
    const all = new ProcTreeReader(root.pid!, { ownProcesses: false });
    await waitFor(() => ready.every((f) => existsSync(f)), { what: 'both processes holding their memory', timeoutMs: 60_000 });
    const everything = all.read();
    const reader = new ProcTreeReader(root.pid!);
    const agentOnly = reader.read();
    expect(everything.rssBytes).toBeGreaterThan(180 * MiB);
    expect(agentOnly.rssBytes).toBeGreaterThan(60 * MiB); // the command counts
    expect(everything.rssBytes - agentOnly.rssBytes).toBeGreaterThan(100 * MiB); // control run does not
    expect(agentOnly.nProcs).toBe(2); // the root shell + the command
    all.close();
    reader.close();
  });

  it('the real `cordon control run` around `sleep`: the call counts a few MiB, not the Node process (4.7 against 48.7 MiB)', async () => {
    const data = tempDirForTest('cordon-own-real-');
    const env = { ...process.env, CORDON_DATA_DIR: join(data, 'data'), CORDON_CONFIG_DIR: join(data, 'config'), CORDON_CACHE_DIR: join(data, 'cache'), CORDON_STATE_DIR: join(data, 'state') };
    const bin = join(REPO, 'packages/host/bin/run.cjs');
    const c = spawn('sh', ['-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} control run -- sleep 60 & wait`], { stdio: 'ignore', detached: true, env });
    started.push(c);
    // Wait until the sleep runs under cordon (the tree: sh, node, sleep).
    const all = new ProcTreeReader(c.pid!, { ownProcesses: false });
    let everything = all.read();
    const deadline = Date.now() + 60_000;
    const sleeping = () => children(c.pid!).some((p) => children(p).some((q) => cmdline(q).startsWith('sleep')));
    while (!sleeping() && Date.now() < deadline) await sleep(50);
    await sleep(100);
    everything = all.read();
    const reader = new ProcTreeReader(c.pid!);
    const agentOnly = reader.read();
    expect(everything.nProcs).toBe(3);
    expect(agentOnly.nProcs).toBe(2); // sh + sleep
    expect(everything.rssBytes - agentOnly.rssBytes).toBeGreaterThan(25 * MiB); // cordon's Node process
    expect(agentOnly.rssBytes).toBeLessThan(15 * MiB);
    all.close();
    reader.close();
  });
});
