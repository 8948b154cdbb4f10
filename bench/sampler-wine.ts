/**
 * The Windows row of `npm run bench:sampler`, measured under Wine: the Windows node.exe runs
 * `bench/wine/sampler-tree.mjs` with the built @cordon/sampler-windows reader (one
 * NtQuerySystemInformation call per tick, through koffi's Windows prebuilt) on a 50-process tree
 * and reports the tick times. Wine's process table holds only Wine's own processes (tens, not the
 * hundreds of a real Windows box), and Wine's NT calls go through wineserver, so the figure is a
 * Wine figure, not a Windows one (the reference quotes a 6.82 ms median tick on a Windows dev box,
 * uncoalesced/cordon). Needs `scripts/install-wine.sh` run first (test preparation)
 * and the built plugin; prints why the row is missing otherwise.
 */
import { spawn } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeExe, wineDir, wineEnv, winPath } from '../test/support/wine.js';

const repo = fileURLToPath(new URL('../', import.meta.url));
const TICKS = 40;

/** Measures and prints the Wine row through `row(name, value, target, ratio)`. */
export async function printWineRows(row: (name: string, value: string, target: string, ratio: string) => void): Promise<void> {
  const dist = join(repo, 'plugins/sampler-windows/dist');
  if (!existsSync(nodeExe) || !existsSync(join(wineDir, 'run/node_modules/koffi')) || existsSync(join(wineDir, 'unavailable'))) {
    console.log('Windows row (Wine): not measured, run scripts/install-wine.sh first');
    return;
  }
  const work = join(wineDir, 'run', `bench-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'sampler'), { recursive: true });
  try {
    for (const f of readdirSync(dist)) if (f.endsWith('.js')) cpSync(join(dist, f), join(work, 'sampler', f));
    cpSync(join(repo, 'bench/wine/sampler-tree.mjs'), join(work, 'sampler-tree.mjs'));
    // node.exe's stdout must be a file under Wine, not a pipe.
    const out = openSync(join(work, 'stdout.txt'), 'w');
    await new Promise<void>((resolve, reject) => {
      const child = spawn('wine', [nodeExe, winPath(join(work, 'sampler-tree.mjs')), winPath(work), String(TICKS)], {
        stdio: ['ignore', out, out],
        env: wineEnv({ WINEDEBUG: '-all' }),
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
      child.on('error', reject);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    closeSync(out);
    if (!existsSync(join(work, 'result.json'))) {
      console.log(`Windows row (Wine): the run failed: ${readFileSync(join(work, 'stdout.txt'), 'utf8').slice(0, 500)}`);
      return;
    }
    const { ticks, procs, system } = JSON.parse(readFileSync(join(work, 'result.json'), 'utf8')) as { ticks: number[]; procs: number; system: number };
    const s = [...ticks].sort((a, b) => a - b);
    const median = s[Math.floor(s.length / 2)]!;
    const p95 = s[Math.min(s.length - 1, Math.floor(s.length * 0.95))]!;
    console.log(`Windows (under Wine, not real Windows): ${procs} processes in the tree (${system} in Wine's table), ${ticks.length} ticks at 250 ms`);
    row('Wine tick time, median (ms)', median.toFixed(3), '', '');
    row('Wine tick time, p95 (ms)', p95.toFixed(3), '', '');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
