import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The Wine suite: the Windows node.exe runs the built sampler (TreeReader + the real
// NtQuerySystemInformation call through koffi's Windows prebuilt) against a tree of node.exe
// processes. Prepared by scripts/install-wine.sh (run by scripts/test-prepare.sh and again here,
// where it is quick once done). The host's sampler loop (lock, detached start, samples.jsonl) is
// not driven: test/wine/loop.mjs reads the tree every 250 ms and stops when the root exits.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const wineDir = process.env.CORDON_WINE_DIR ?? join(repo, '.cache/wine');
const dist = join(repo, 'plugins/sampler-windows/dist');
const MiB = 1024 * 1024;

/** A Linux path as Wine's Z: drive names it. */
const winPath = (p: string): string => `Z:${p.replaceAll('/', '\\')}`;

interface Reading {
  t: number;
  rssBytes: number;
  cpuPct: number;
  nProcs: number;
  partial: boolean;
  rootAlive: boolean;
}

/** Runs the Wine preparation; returns why Wine cannot be used here, or undefined when ready. */
function prepare(): string | undefined {
  const r = spawnSync('bash', [join(repo, 'scripts/install-wine.sh')], { stdio: 'inherit', env: { ...process.env, CORDON_WINE_DIR: wineDir }, timeout: 100_000 });
  const reason = join(wineDir, 'unavailable');
  if (existsSync(reason)) return readFileSync(reason, 'utf8').trim();
  if (r.status !== 0) throw new Error(`scripts/install-wine.sh failed (status ${r.status}, ${r.error?.message ?? r.signal ?? ''})`);
  return undefined;
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
      // node.exe's stdout must be a file under Wine (a pipe makes console.log throw EBADF).
      const out = openSync(join(work, 'stdout.txt'), 'w');
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn('wine', [join(wineDir, 'nodewin/package/bin/node.exe'), winPath(join(work, 'loop.mjs')), winPath(work)], {
          stdio: ['ignore', out, out],
          env: { PATH: process.env.PATH, HOME: process.env.HOME, WINEPREFIX: join(wineDir, 'prefix'), WINEDEBUG: '-all', NODE_SKIP_PLATFORM_CHECK: '1' },
        });
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          // The node.exe tree lives on under this prefix's wineserver: end it too.
          spawnSync('wineserver', ['-k'], { env: { PATH: process.env.PATH, WINEPREFIX: join(wineDir, 'prefix') }, timeout: 20_000 });
        }, 110_000);
        child.on('error', reject);
        child.on('exit', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      closeSync(out);
      const lines = readFileSync(join(work, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(code, readFileSync(join(work, 'stdout.txt'), 'utf8')).toBe(0);
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
  }, 180_000);
});
