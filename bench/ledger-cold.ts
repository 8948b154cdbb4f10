/**
 * The cold-process rows of `npm run bench:ledger`: `cordon pcodx show`, `ids` and `turn` as users
 * run them, each a new process (`node packages/host/bin/run.cjs pcodx …`, stdout to a file and
 * checked), on ledgers of 1,000, 10,000 and 100,000 messages, side by side with `node -e 0`.
 *
 * Variants, interleaved per round (BENCH_RUNS rounds, default 5, 3 at 100k, after one warm-up that
 * also writes the V8 code caches), each without and with NODE_EXTRA_CA_CERTS (`ca-env.ts`; the
 * row without is the target): `node -e 0`, `pcodx show`, `pcodx ids`, `pcodx turn --text …`
 * (one message more per run), and `pcodx show` through oclif (`CORDON_NO_FAST_ROUTE=1`, the route
 * every pcodx command took before the fast route) for before/after under the same load.
 *
 * Each run goes through GNU time (`/usr/bin/time -f`): CPU (user + sys) and peak RSS; wall is
 * timed here around it. Targets (issue 32): wall above `node -e 0` ≤ 250 ms at 100k messages and
 * ≤ 50 ms at 1k; peak RSS above `node -e 0`'s ≤ 2× the render's size at 100k (where the render,
 * not the code, is what a process holds; at smaller sizes the loaded code dominates and the row
 * is printed without a verdict).
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ledger } from '../packages/host/src/ledger/index.js';
import { caModes } from './ca-env.ts';
import { median, TIME, timedRun, type Run } from './timed-run.ts';
import { benchText } from './ledger-text.ts';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(REPO, 'packages/host/bin/run.cjs');
const SIZES = (process.env.BENCH_COLD_SIZES ?? '1000,10000,100000').split(',').map(Number);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS) || 5);
/** Wall above `node -e 0` allowed, ms, by size; and the RSS allowance in renders. */
const TARGET = { aboveNodeMs: { 1000: 50, 100_000: 250 } as Record<number, number>, rssRenders: 2 } as const;

interface Variant {
  readonly name: string;
  /** Whether this is a row of the target environment (no CA variable). */
  readonly target: boolean;
  /** The `node -e 0` row this variant is compared with. */
  readonly floor: string;
  readonly argv: string[];
  readonly env: NodeJS.ProcessEnv;
  /** Bytes stdout must hold (`show`), or a test of it. */
  readonly check: (stdout: Buffer) => void;
}

/** Runs variant `v` once, timed; throws when it fails or its output is wrong. */
function measure(v: Variant, out: string): Run {
  const { run, output } = timedRun(v.name, v.argv, { env: v.env, out });
  v.check(output);
  return run;
}

/** A ledger of `size` messages (user and assistant in turn, the texts of the in-process rows) in one session; its render. */
async function writeLedger(path: string, size: number): Promise<string> {
  const ledger = await Ledger.open({ path });
  try {
    const session = (await ledger.resolveSession({ mode: 'create', id: `cold-${size}` })).id;
    for (let i = 0; i < size; i += 500) {
      await ledger.record(session, Array.from({ length: Math.min(500, size - i) }, (_, k) => ({ role: (i + k) % 2 === 0 ? ('user' as const) : ('assistant' as const), text: benchText(i + k), source: 'bench' })));
    }
    return await ledger.render(session);
  } finally {
    await ledger.close();
  }
}

/**
 * Measures and prints the cold-process table in `dir` (a temp dir the caller removes). Needs a
 * build (`npm run build`): the bin runs `dist/`.
 */
export async function coldProcessRows(dir: string): Promise<void> {
  if (!existsSync(join(REPO, 'packages/host/dist/fast/plugin-command.cjs'))) throw new Error('build first: npm run build');
  if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed to read each run's CPU time and peak RSS`);
  const dataDir = join(dir, 'cold-data');
  mkdirSync(dataDir, { recursive: true });
  // The codex plugin linked as `cordon plugins link` records it.
  writeFileSync(join(dataDir, 'package.json'), JSON.stringify({ name: '@cordon/host', private: true, dependencies: {}, oclif: { schema: 1, plugins: [{ name: '@cordon/codex', root: join(REPO, 'plugins/codex'), type: 'link' }] } }));
  const base: NodeJS.ProcessEnv = { ...process.env, CORDON_DATA_DIR: dataDir, CORDON_CONFIG_DIR: join(dir, 'cold-config'), CORDON_CACHE_DIR: join(dir, 'cold-cache'), XDG_DATA_HOME: join(dir, 'cold-xdg') };
  for (const key of ['PCODX_DB', 'NODE_OPTIONS', 'CORDON_NO_FAST_ROUTE']) delete base[key];
  const modes = caModes(base);
  const results = new Map<number, { variants: Variant[]; runs: Map<string, Run[]>; renderBytes: number }>();
  for (const size of SIZES) {
    const db = join(dir, `cold-${size}.sqlite3`);
    const render = Buffer.from(`${await writeLedger(db, size)}\n`);
    // Turns only append: every `show` prints the first render, then the turns recorded since.
    const body = render.subarray(0, render.length - 1);
    const showCheck = (stdout: Buffer): void => {
      if (!stdout.subarray(0, body.length).equals(body) || stdout[stdout.length - 1] !== 0x0a) throw new Error(`pcodx show printed ${stdout.length} bytes that do not start with the ${body.length} of the render`);
    };
    const variants: Variant[] = [];
    for (const mode of modes) {
      const ca = mode.target ? '' : ' (CA)';
      const floor = `node -e 0${ca}`;
      const cordon = (args: string[]) => [process.execPath, BIN, 'pcodx', ...args, '--db', db];
      variants.push(
        { name: floor, target: mode.target, floor, argv: [process.execPath, '-e', '0'], env: mode.env, check: () => undefined },
        { name: `pcodx show${ca}`, target: mode.target, floor, argv: cordon(['show']), env: mode.env, check: showCheck },
        { name: `pcodx ids${ca}`, target: mode.target, floor, argv: cordon(['ids']), env: mode.env, check: (out) => void (out.includes(`\nmsg${size}\n`) || fail('pcodx ids', out)) },
        { name: `pcodx turn${ca}`, target: mode.target, floor, argv: cordon(['turn', '--text', 'one more turn']), env: mode.env, check: (out) => void (out.subarray(out.length - 200).includes('one more turn') || fail('pcodx turn', out)) },
        { name: `pcodx show via oclif${ca}`, target: mode.target, floor, argv: cordon(['show']), env: { ...mode.env, CORDON_NO_FAST_ROUTE: '1' }, check: showCheck },
      );
    }
    const runs = new Map(variants.map((v) => [v.name, [] as Run[]]));
    const rounds = size >= 100_000 ? Math.min(RUNS, Number(process.env.BENCH_RUNS) || 3) : RUNS;
    const out = join(dir, 'cold-out.txt');
    for (let i = 0; i <= rounds; i++) {
      for (const v of variants) {
        const run = measure(v, out);
        if (i > 0) runs.get(v.name)!.push(run);
      }
    }
    results.set(size, { variants, runs, renderBytes: render.length });
    console.error(`cold rows: ${size} messages done (${statSync(db).size} bytes of SQLite)`);
  }
  report(results);
}

function fail(name: string, out: Buffer): never {
  throw new Error(`${name} printed unexpected output: ${out.subarray(0, 300).toString()}`);
}

function report(results: Map<number, { variants: Variant[]; runs: Map<string, Run[]>; renderBytes: number }>): void {
  const f = (x: number, d = 1): string => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  console.log('\ncold processes: one `cordon pcodx …` process per run (medians of interleaved rounds after a warm-up; wall, CPU = user + sys, peak RSS)\n');
  console.log('| messages | command | runs | wall ms | CPU ms | peak RSS MiB | wall / node -e 0 | wall above node -e 0 ms | RSS above node -e 0 MiB |');
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
  const verdicts: string[] = [];
  for (const [size, { variants, runs, renderBytes }] of results) {
    const med = (name: string, k: keyof Run): number => median(runs.get(name)!.map((r) => r[k]));
    for (const v of variants) {
      const isFloor = v.name === v.floor;
      const wall = med(v.name, 'wallMs');
      const above = wall - med(v.floor, 'wallMs');
      const rssAbove = med(v.name, 'rssMiB') - med(v.floor, 'rssMiB');
      console.log(`| ${size} | ${v.name} | ${runs.get(v.name)!.length} | ${f(wall)} | ${f(med(v.name, 'cpuMs'))} | ${f(med(v.name, 'rssMiB'))} | ${isFloor ? '' : f(wall / med(v.floor, 'wallMs'), 2)} | ${isFloor ? '' : f(above)} | ${isFloor ? '' : f(rssAbove)} |`);
      if (!v.target || isFloor || v.name.includes('oclif')) continue;
      const limit = TARGET.aboveNodeMs[size];
      if (limit !== undefined) verdicts.push(`${v.name} at ${size}: wall above node -e 0 ${f(above)} ms ≤ ${limit}: ${verdict(above <= limit)}`);
      if (size >= 100_000) {
        const allowed = (TARGET.rssRenders * renderBytes) / 2 ** 20;
        verdicts.push(`${v.name} at ${size}: peak RSS above node -e 0 ${f(rssAbove)} MiB ≤ ${TARGET.rssRenders}× the render (${f(allowed)} MiB): ${verdict(rssAbove <= allowed)}`);
      }
    }
    console.log(`| ${size} | (render size) | | | | ${f(renderBytes / 2 ** 20, 2)} | | | |`);
  }
  console.log('\ntargets (without NODE_EXTRA_CA_CERTS):');
  for (const line of verdicts) console.log(`- ${line}`);
}
