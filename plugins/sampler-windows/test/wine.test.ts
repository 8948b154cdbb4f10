import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dist, MiB, nodeExe, prepare, wineDir, wineEnv, winPath } from './wine-harness.js';

// The Wine suite: the Windows node.exe runs the built sampler (TreeReader + the real
// NtQuerySystemInformation call through koffi's Windows prebuilt) against a tree of node.exe
// processes. Prepared by scripts/install-wine.sh (run by scripts/test-prepare.sh and again here,
// where it is quick once done). test/wine/loop.mjs reads the tree every 250 ms and stops when the
// root exits; the host's own sampler (hook, lock, detached start, samples.jsonl) is driven by
// wine-host.test.ts.

interface LoopRun {
  /** loop.mjs wrote its first lines (the recorded table and the root's pid). */
  started: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The 110 s guard fired and killed the run. */
  timedOut: boolean;
  /** Wall time of the run, ms. */
  ms: number;
  /** What node.exe and Wine printed (stdout and stderr share one file). */
  output: string;
}

/** Runs loop.mjs under the Windows node.exe once (samples into `work`), with a 110 s guard. */
async function runLoop(work: string): Promise<LoopRun> {
  rmSync(join(work, 'samples.jsonl'), { force: true });
  rmSync(join(work, 'go'), { force: true });
  // node.exe's stdout must be a file under Wine (a pipe makes console.log throw EBADF).
  const outPath = join(work, 'stdout.txt');
  const out = openSync(outPath, 'w');
  const t0 = Date.now();
  let timedOut = false;
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    const child = spawn('wine', [nodeExe, winPath(join(work, 'loop.mjs')), winPath(work)], { stdio: ['ignore', out, out], env: wineEnv() });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      // The node.exe tree lives on under this prefix's wineserver: end it too.
      spawnSync('wineserver', ['-k'], { env: wineEnv(), timeout: 20_000 });
    }, 110_000);
    child.on('error', reject);
    child.on('exit', (c, s) => {
      clearTimeout(timer);
      resolve({ code: c, signal: s });
    });
  });
  closeSync(out);
  const samples = existsSync(join(work, 'samples.jsonl')) ? readFileSync(join(work, 'samples.jsonl'), 'utf8') : '';
  return { started: samples.includes('"root"'), code, signal, timedOut, ms: Date.now() - t0, output: readFileSync(outPath, 'utf8') };
}

/** One paragraph on a run for a failure message. */
function describeRun(r: LoopRun): string {
  const end = r.timedOut ? 'killed by the 110 s guard' : r.signal ? `ended by ${r.signal}` : `exit ${r.code}`;
  return `node.exe loop.mjs under Wine: ${end} after ${r.ms} ms; output:\n${r.output.slice(-4000) || '(none)'}`;
}

/** `node.exe -e` writing a file: tells a Wine that cannot start node.exe from a failing loop. */
function smokeTest(): string {
  const file = join(wineDir, 'run', `smoke-${process.pid}.txt`);
  rmSync(file, { force: true });
  const r = spawnSync('wine', [nodeExe, '-e', `require('fs').writeFileSync(${JSON.stringify(winPath(file))}, process.version)`], { env: wineEnv(), encoding: 'utf8', timeout: 60_000 });
  const wrote = existsSync(file) ? readFileSync(file, 'utf8') : '(no file)';
  rmSync(file, { force: true });
  return `smoke test node.exe -e: status ${r.status} signal ${r.signal} wrote ${wrote}; stderr:\n${(r.stderr ?? '').slice(-2000)}`;
}

interface Reading {
  t: number;
  rssBytes: number;
  cpuPct: number;
  nProcs: number;
  partial: boolean;
  rootAlive: boolean;
}

describe('sampler-windows under Wine (Windows node.exe, real NtQuerySystemInformation)', () => {
  it('samples a node.exe tree: the 300 MB peak, the CPU burner, and stops when the root exits', async (ctx) => {
    const unavailable = prepare();
    if (unavailable) {
      console.log(`sampler-windows Wine suite skipped: ${unavailable}`);
      ctx.skip();
      return;
    }
    expect(readdirSync(dist)).toContain('tree.js'); // `npm run build` comes first
    const work = join(wineDir, 'run', `suite-${process.pid}`);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(join(work, 'sampler'), { recursive: true });
    for (const f of readdirSync(dist)) if (f.endsWith('.js')) cpSync(join(dist, f), join(work, 'sampler', f));
    cpSync(fileURLToPath(new URL('./wine/', import.meta.url)), work, { recursive: true });
    try {
      // A run that produced no samples at all (node.exe never reached loop.mjs) is tried once more
      // after ending the prefix's wineserver, and both runs' diagnostics are kept for the failure
      // message: what Wine printed (err channels on), the exit code or signal, and the time taken.
      let run = await runLoop(work);
      const firstTry = run.started ? undefined : run;
      if (firstTry) {
        console.log(`sampler-windows Wine suite: the first run produced no samples; retrying.\n${describeRun(firstTry)}`);
        spawnSync('wineserver', ['-k'], { env: wineEnv(), timeout: 20_000 });
        run = await runLoop(work);
      }
      expect(run.started, [firstTry && describeRun(firstTry), describeRun(run), smokeTest()].filter(Boolean).join('\n\n')).toBe(true);
      expect(run.code, describeRun(run)).toBe(0);
      const lines = readFileSync(join(work, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const readings = lines.filter((l) => 't' in l) as unknown as Reading[];

      // Stops on the root's exit: the last reading says so, and the loop ended for that reason.
      expect(lines.at(-1)).toEqual({ stop: 'root-exited' });
      expect(readings.at(-1)).toMatchObject({ rootAlive: false });
      expect(readings.slice(0, -1).every((r) => r.rootAlive)).toBe(true);

      // The whole tree was seen: root + burner + allocator.
      expect(Math.max(...readings.map((r) => r.nProcs))).toBeGreaterThanOrEqual(3);
      // Peak: ≥ 250 MB above the tree at rest (the first three-process readings, taken before
      // the allocator was told to go).
      const baseline = Math.min(...readings.filter((r) => r.nProcs >= 3).map((r) => r.rssBytes));
      const peak = Math.max(...readings.map((r) => r.rssBytes));
      expect(peak - baseline).toBeGreaterThanOrEqual(250 * MiB);

      // CPU: the tree's CPU integrated over the samples covers what the burner itself used
      // (it idles after burning so its final counters are read; shares of a loaded machine vary).
      const burn = JSON.parse(readFileSync(join(work, 'burn.json'), 'utf8')) as { cpuMs: number };
      expect(burn.cpuMs).toBeGreaterThan(100);
      let prev = 0;
      let cpuMs = 0;
      for (const r of readings) {
        cpuMs += (r.cpuPct / 100) * (r.t - prev);
        prev = r.t;
      }
      expect(cpuMs).toBeGreaterThanOrEqual(0.9 * burn.cpuMs);
      expect(Math.max(...readings.map((r) => r.cpuPct))).toBeGreaterThan(0);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 400_000); // two 110 s runs and a smoke test at worst; a good run takes 10–30 s
});
