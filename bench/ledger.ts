/**
 * `npm run bench:ledger`: the partial-compaction ledger at 10,000 and 100,000 messages, side by
 * side, on real SQLite files in a temp dir. For each size it measures
 * - record: all but the last 1,000 messages written in batches of 500 (time and messages/s),
 *   then 1,000 single-message records on top (ms per record: what a CLI `record` or a proxy
 *   turn pays);
 * - compact-many: one request of 100 ranges over the session;
 * - render: the text render of the compacted session (median of 5) and of the raw one.
 * It prints the times and the 100k/10k ratios; linear work gives ~10 for whole-session work and
 * ~1 for per-record work. Target: render of 100k ≤ 200 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger } from '../packages/host/src/ledger/index.js';

const SIZES = [10_000, 100_000] as const;
const BATCH = 500;
const SINGLES = 1_000;
const RANGES = 100;

interface Row {
  size: number;
  batched: number;
  recordMs: number;
  perRecordMs: number;
  compactMs: number;
  renderRawMs: number;
  renderMs: number;
  renderBytes: number;
  renderRawBytes: number;
}

const now = () => performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A conversation-like text: 60–260 bytes, some multi-line. */
const text = (i: number) => `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(2 + (i % 9))}${i % 5 === 0 ? '\nsecond line\n' : ''}`;

async function measure(size: number, dir: string): Promise<Row> {
  const ledger = await Ledger.open({ path: join(dir, `bench-${size}.sqlite3`) });
  const session = (await ledger.resolveSession({ mode: 'create', id: `bench-${size}` })).id;
  const base = size - SINGLES;
  let t = now();
  for (let i = 0; i < base; i += BATCH) {
    const n = Math.min(BATCH, base - i);
    await ledger.record(session, Array.from({ length: n }, (_, k) => ({ role: (i + k) % 2 === 0 ? ('user' as const) : ('assistant' as const), text: text(i + k), source: 'bench' })));
  }
  const recordMs = now() - t;
  t = now();
  for (let i = base; i < size; i++) await ledger.record(session, [{ role: 'assistant', text: text(i), source: 'bench' }]);
  const perRecordMs = (now() - t) / SINGLES;

  const rawTimes: number[] = [];
  let rawBytes = 0;
  for (let k = 0; k < 5; k++) {
    t = now();
    rawBytes = Buffer.byteLength(await ledger.render(session));
    rawTimes.push(now() - t);
  }

  // 100 disjoint ranges spread over the whole session, each half of its slot.
  const slot = Math.floor(size / RANGES);
  const ranges = Array.from({ length: RANGES }, (_, r) => ({ from: `msg${r * slot + 1}`, to: `msg${r * slot + Math.floor(slot / 2)}`, summary: `summary of slot ${r}` }));
  t = now();
  await ledger.compact(session, ranges);
  const compactMs = now() - t;

  const times: number[] = [];
  let bytes = 0;
  for (let k = 0; k < 5; k++) {
    t = now();
    bytes = Buffer.byteLength(await ledger.render(session));
    times.push(now() - t);
  }
  await ledger.close();
  return { size, batched: base, recordMs, perRecordMs, compactMs, renderRawMs: median(rawTimes), renderMs: median(times), renderBytes: bytes, renderRawBytes: rawBytes };
}

const dir = mkdtempSync(join(tmpdir(), 'cordon-bench-ledger-'));
try {
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(await measure(size, dir));
  const [small, big] = rows as [Row, Row];
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  const ratio = (a: number, b: number) => (b / a).toFixed(2);
  console.log('ledger benchmark (real SQLite file, WAL, synchronous=NORMAL)\n');
  console.log(['metric'.padEnd(34), '10k'.padStart(14), '100k'.padStart(14), '100k/10k'.padStart(10)].join(''));
  const line = (name: string, a: string, b: string, r: string) => console.log([name.padEnd(34), a.padStart(14), b.padStart(14), r.padStart(10)].join(''));
  line(`record in batches of ${BATCH}`, fmt(small.recordMs), fmt(big.recordMs), ratio(small.recordMs, big.recordMs));
  line('  throughput (msg/s)', (small.batched / (small.recordMs / 1000)).toFixed(0), (big.batched / (big.recordMs / 1000)).toFixed(0), '');
  line(`record one at a time (ms/record)`, small.perRecordMs.toFixed(3), big.perRecordMs.toFixed(3), ratio(small.perRecordMs, big.perRecordMs));
  line(`compact-many, ${RANGES} ranges`, fmt(small.compactMs), fmt(big.compactMs), ratio(small.compactMs, big.compactMs));
  line('render, uncompacted (median of 5)', fmt(small.renderRawMs), fmt(big.renderRawMs), ratio(small.renderRawMs, big.renderRawMs));
  line('render, compacted (median of 5)', fmt(small.renderMs), fmt(big.renderMs), ratio(small.renderMs, big.renderMs));
  line('render size, uncompacted (bytes)', String(small.renderRawBytes), String(big.renderRawBytes), ratio(small.renderRawBytes, big.renderRawBytes));
  line('render size, compacted (bytes)', String(small.renderBytes), String(big.renderBytes), ratio(small.renderBytes, big.renderBytes));
  console.log(`\ntarget: linear (whole-session ratios ≈ 10, per-record ≈ 1); render of 100k ≤ 200 ms: ${big.renderRawMs <= 200 && big.renderMs <= 200 ? 'met' : 'NOT met'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
