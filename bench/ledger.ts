/**
 * `npm run bench:ledger`: the partial-compaction ledger at 10,000 and 100,000 messages, side by
 * side, on real SQLite files in a temp dir. For each size it measures
 * - record: all but the last 1,000 messages written in batches of 500 (time and messages/s),
 *   then 1,000 single-message records on top (ms per record: what a CLI `record` or a proxy
 *   turn pays);
 * - render, uncompacted: the text render of the whole session: the first in the process (cold:
 *   SQLite's page cache and the allocator's memory are new, as in a one-shot `pcodx show`), then
 *   the median of 5 more (what a long-lived process such as the proxy pays);
 * - compact-many: one request of 100 ranges over the session, each half of its slot (median of 3,
 *   each on its own copy of the uncompacted file);
 * - render, compacted: the render after that compaction (first, then median of 5; about half the
 *   bytes).
 * Every time is wall time; CPU time (user + system) of the same runs is printed below it, because
 * on a loaded machine wall time grows with the load and CPU time does not.
 *
 * Then the cold-process rows (`ledger-cold.ts`): `cordon pcodx show`, `ids` and `turn` as new
 * processes at 1k, 10k and 100k messages against `node -e 0`, with and without
 * NODE_EXTRA_CA_CERTS. `BENCH_COLD=only` runs just those; `BENCH_COLD_SIZES=1000,…` and
 * `BENCH_RUNS` set their sizes and rounds.
 *
 * Targets: render and compact-many linear in the session's size (100k/10k ratio ≤ 11),
 * render ≤ 200 ms and compact-many ≤ 300 ms at 100k messages, and the compacted render never
 * slower than the uncompacted one. Each is printed beside the measured number with met / NOT met.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger } from '../packages/host/src/ledger/index.js';
import { coldProcessRows } from './ledger-cold.ts';
import { benchText } from './ledger-text.ts';

const SIZES = [10_000, 100_000] as const;
const BATCH = 500;
const SINGLES = 1_000;
const RANGES = 100;
const RENDERS = 5;
const COMPACTS = 3;

/** Targets: 100k-record render and compaction times (ms) and the 100k/10k growth ratio. */
const TARGET = { renderMs100k: 200, compactMs100k: 300, growth: 11 } as const;

/** A timed run: wall and CPU (user + system) time of this process, in ms. */
interface Timing {
  wallMs: number;
  cpuMs: number;
}

interface Row {
  size: number;
  batched: number;
  recordMs: number;
  perRecordMs: number;
  compact: Timing;
  renderRawFirst: Timing;
  renderRaw: Timing;
  renderFirst: Timing;
  render: Timing;
  renderBytes: number;
  renderRawBytes: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; timing: Timing }> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const value = await fn();
  const wallMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { value, timing: { wallMs, cpuMs: (used.user + used.system) / 1000 } };
}

/** Median of each field over the runs. */
function median(runs: readonly Timing[]): Timing {
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { wallMs: mid(runs.map((r) => r.wallMs)), cpuMs: mid(runs.map((r) => r.cpuMs)) };
}

const text = benchText;

/** Renders once (the first render of this connection), then `RENDERS` times: both timings and the render's size in bytes. */
async function renders(ledger: Ledger, session: string): Promise<{ first: Timing; timing: Timing; bytes: number }> {
  const first = await timed(() => ledger.render(session));
  const runs: Timing[] = [];
  for (let k = 0; k < RENDERS; k++) runs.push((await timed(() => ledger.render(session))).timing);
  return { first: first.timing, timing: median(runs), bytes: Buffer.byteLength(first.value) };
}

async function measure(size: number, dir: string): Promise<Row> {
  const path = join(dir, `bench-${size}.sqlite3`);
  let ledger = await Ledger.open({ path });
  const session = (await ledger.resolveSession({ mode: 'create', id: `bench-${size}` })).id;
  const base = size - SINGLES;
  let t = performance.now();
  for (let i = 0; i < base; i += BATCH) {
    const n = Math.min(BATCH, base - i);
    await ledger.record(session, Array.from({ length: n }, (_, k) => ({ role: (i + k) % 2 === 0 ? ('user' as const) : ('assistant' as const), text: text(i + k), source: 'bench' })));
  }
  const recordMs = performance.now() - t;
  t = performance.now();
  for (let i = base; i < size; i++) await ledger.record(session, [{ role: 'assistant', text: text(i), source: 'bench' }]);
  const perRecordMs = (performance.now() - t) / SINGLES;

  const raw = await renders(ledger, session);
  await ledger.close();

  // 100 disjoint ranges spread over the whole session, each half of its slot.
  const slot = Math.floor(size / RANGES);
  const ranges = Array.from({ length: RANGES }, (_, r) => ({ from: `msg${r * slot + 1}`, to: `msg${r * slot + Math.floor(slot / 2)}`, summary: `summary of slot ${r}` }));
  const compacts: Timing[] = [];
  for (let k = 0; k < COMPACTS; k++) {
    // Each run compacts its own copy of the closed (checkpointed) uncompacted file; the last
    // copy stays open for the compacted render.
    const copy = join(dir, `bench-${size}-compact${k}.sqlite3`);
    copyFileSync(path, copy);
    ledger = await Ledger.open({ path: copy });
    compacts.push((await timed(() => ledger.compact(session, ranges))).timing);
    if (k < COMPACTS - 1) await ledger.close();
  }
  const compacted = await renders(ledger, session);
  await ledger.close();
  return { size, batched: base, recordMs, perRecordMs, compact: median(compacts), renderRawFirst: raw.first, renderRaw: raw.timing, renderFirst: compacted.first, render: compacted.timing, renderBytes: compacted.bytes, renderRawBytes: raw.bytes };
}

const dir = mkdtempSync(join(tmpdir(), 'cordon-bench-ledger-'));
try {
  if (process.env.BENCH_COLD !== 'only') await inProcessRows(dir);
  await coldProcessRows(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The in-process rows: record, compact-many and render at 10k and 100k, printed with their targets. */
async function inProcessRows(dir: string): Promise<void> {
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(await measure(size, dir));
  const [small, big] = rows as [Row, Row];
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const growth = (a: number, b: number) => b / a;
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const cols = [36, 12, 12, 10];
  const line = (cells: string[]) => console.log(cells.map((c, i) => (i === 0 ? c.padEnd(cols[0]!) : i < cols.length ? c.padStart(cols[i]!) : `   ${c}`)).join(''));

  console.log(`ledger benchmark, Node ${process.version} (real SQLite files, WAL, synchronous=NORMAL; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs)\n`);
  line(['metric', '10k', '100k', '100k/10k', 'target']);
  line([`record in batches of ${BATCH}`, ms(small.recordMs), ms(big.recordMs), growth(small.recordMs, big.recordMs).toFixed(2), '']);
  line(['  throughput (msg/s)', (small.batched / (small.recordMs / 1000)).toFixed(0), (big.batched / (big.recordMs / 1000)).toFixed(0), '', '']);
  line(['record one at a time (ms/record)', small.perRecordMs.toFixed(3), big.perRecordMs.toFixed(3), growth(small.perRecordMs, big.perRecordMs).toFixed(2), '']);

  const timedRow = (name: string, a: Timing, b: Timing, limitMs: number) => {
    const g = growth(a.wallMs, b.wallMs);
    line([name, ms(a.wallMs), ms(b.wallMs), g.toFixed(2), `100k ≤ ${limitMs} ms: ${verdict(b.wallMs <= limitMs)}; 100k/10k ≤ ${TARGET.growth}: ${verdict(g <= TARGET.growth)}`]);
    const gc = growth(a.cpuMs, b.cpuMs);
    line(['  CPU time', ms(a.cpuMs), ms(b.cpuMs), gc.toFixed(2), `(CPU: ${verdict(b.cpuMs <= limitMs)}; ${verdict(gc <= TARGET.growth)})`]);
  };
  timedRow(`compact-many, ${RANGES} ranges (median of ${COMPACTS})`, small.compact, big.compact, TARGET.compactMs100k);
  timedRow(`render, uncompacted (median of ${RENDERS})`, small.renderRaw, big.renderRaw, TARGET.renderMs100k);
  timedRow(`render, compacted (median of ${RENDERS})`, small.render, big.render, TARGET.renderMs100k);
  const firstRow = (name: string, a: Timing, b: Timing) => {
    line([name, ms(a.wallMs), ms(b.wallMs), growth(a.wallMs, b.wallMs).toFixed(2), `CPU ${ms(a.cpuMs)} / ${ms(b.cpuMs)} (no target: cold caches)`]);
  };
  firstRow('render, uncompacted, first', small.renderRawFirst, big.renderRawFirst);
  firstRow('render, compacted, first', small.renderFirst, big.renderFirst);
  line(['render size, uncompacted (bytes)', String(small.renderRawBytes), String(big.renderRawBytes), growth(small.renderRawBytes, big.renderRawBytes).toFixed(2), '']);
  line(['render size, compacted (bytes)', String(small.renderBytes), String(big.renderBytes), growth(small.renderBytes, big.renderBytes).toFixed(2), '']);

  const vs = (r: Row) => r.render.wallMs / r.renderRaw.wallMs;
  const vsCpu = (r: Row) => r.render.cpuMs / r.renderRaw.cpuMs;
  console.log('\ncompacted vs uncompacted render (time ratio; the compacted one has about half the bytes)');
  line(['', '10k', '100k', '', 'target']);
  line(['  compacted / uncompacted, wall', vs(small).toFixed(2), vs(big).toFixed(2), '', `≤ 1 at both sizes: ${verdict(vs(small) <= 1 && vs(big) <= 1)}`]);
  line(['  compacted / uncompacted, CPU', vsCpu(small).toFixed(2), vsCpu(big).toFixed(2), '', `(CPU: ${verdict(vsCpu(small) <= 1 && vsCpu(big) <= 1)})`]);

  const met =
    big.renderRaw.wallMs <= TARGET.renderMs100k &&
    big.render.wallMs <= TARGET.renderMs100k &&
    big.compact.wallMs <= TARGET.compactMs100k &&
    [growth(small.renderRaw.wallMs, big.renderRaw.wallMs), growth(small.render.wallMs, big.render.wallMs), growth(small.compact.wallMs, big.compact.wallMs)].every((g) => g <= TARGET.growth) &&
    vs(small) <= 1 &&
    vs(big) <= 1;
  console.log(`\nall targets (wall time): ${verdict(met)}; record per message ≈ 1 (100k/10k) means linear record cost`);
}
