/**
 * `npm run bench:top`: what `cordon top` pays to read one running session whose files are 1 MiB,
 * 100 MiB and 1 GiB, in one run, to show that the cost is the windows it reads and not the files.
 *
 * Each size gets a session directory in the hook's and the sampler's formats: `markers.jsonl` of
 * tool_start/tool_end pairs (lines as `appendMarker` writes them) and `samples.jsonl` (the
 * sampler's own `formatSample`), written out for 1 MiB and 100 MiB; for 1 GiB the same 1 MiB of
 * lines follows a sparse hole, so the bench needs no gigabyte of disk. The agent is this process
 * (its pid in the markers), so the session runs; no sampler is started.
 *
 * Per size (BENCH_RUNS rounds, default 20, after one warm-up): a first read (`--once`: a new
 * `TopReader`), and a refresh of a reader that has read the session before (the live view's
 * second-by-second cost, with one new sample appended before each), in wall ms (median) and bytes
 * read (`rchar` of /proc/self/io). Linux only.
 */
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Marker } from '../packages/host/src/telemetry/markers.js';
import { formatSample } from '../packages/host/src/telemetry/sampler/sample.js';
import { TopReader } from '../packages/host/src/top/snapshot.js';

const RUNS = Number(process.env.BENCH_RUNS) || 20;
const MIB = 1024 * 1024;

function rchar(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

/** About `bytes` of marker lines (tool_start/tool_end pairs) and of sample lines, ending `untilMs`. */
function lines(bytes: number, untilMs: number): { markers: string; samples: string } {
  const markers: string[] = [];
  const samples: string[] = [];
  let size = 0;
  let i = 0;
  const base = { v: 1, session_id: 'bench-top', agent: 'claude-code', native_event: 'PreToolUse', hook_overhead_ms: 12.5, hook_pid: 1, agent_pid: process.pid, cwd: '/work/app' };
  while (size < bytes) {
    const ts = untilMs - (bytes - size) / 10;
    const start: Marker = { ...base, event: 'tool_start', ts, call_key: `toolu_${i}`, tool_name: 'Bash', tool: 'shell', command: `npm test -- --grep case-${i}` } as Marker;
    const end: Marker = { ...base, event: 'tool_end', native_event: 'PostToolUse', ts: ts + 5, call_key: `toolu_${i}`, tool_name: 'Bash', tool: 'shell', command: `npm test -- --grep case-${i}`, exit_status: 'ok' } as Marker;
    const m = `${JSON.stringify(start)}\n${JSON.stringify(end)}\n`;
    const s = formatSample(ts, { rssBytes: 200 * MIB + (i % 50) * MIB, cpuPct: 40, nProcs: 3, partial: false } as never);
    markers.push(m);
    samples.push(s);
    size += m.length;
    i++;
  }
  return { markers: markers.join(''), samples: samples.join('') };
}

function write(path: string, text: string, holeBytes = 0): void {
  const fd = openSync(path, 'w', 0o600);
  closeSync(fd);
  if (holeBytes) {
    truncateSync(path, holeBytes);
    appendFileSync(path, '\n');
  }
  const out = openSync(path, 'a');
  writeSync(out, text);
  closeSync(out);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

if (process.platform !== 'linux') {
  console.log('bench:top reads /proc (Linux only); skipped');
  process.exit(0);
}

const root = mkdtempSync(join(tmpdir(), 'cordon-bench-top-'));
try {
  console.log(`cordon top, Node ${process.version}: reading one running session, ${RUNS} rounds (median)`);
  console.log('size       first read ms  bytes read   refresh ms  bytes read');
  for (const [label, real, hole] of [['1 MiB', 1 * MIB, 0], ['100 MiB', 100 * MIB, 0], ['1 GiB', 1 * MIB, 1024 * MIB]] as const) {
    const data = join(root, label.replace(' ', ''));
    const dir = join(data, 'runs', 'bench-top');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = Date.now();
    const { markers, samples } = lines(real, now);
    // An open call at the end, so the peak is read too.
    const open = `${JSON.stringify({ v: 1, event: 'tool_start', ts: now - 60_000, session_id: 'bench-top', agent: 'claude-code', native_event: 'PreToolUse', hook_overhead_ms: 1, hook_pid: 1, agent_pid: process.pid, call_key: 'toolu_open', tool_name: 'Bash', tool: 'shell', command: 'npm run build' })}\n`;
    write(join(dir, 'markers.jsonl'), markers + open, hole);
    write(join(dir, 'samples.jsonl'), samples, hole);
    const first: number[] = [];
    const firstBytes: number[] = [];
    const refresh: number[] = [];
    const refreshBytes: number[] = [];
    const warm = new TopReader({ dataDir: data });
    for (let round = -1; round < RUNS; round++) {
      let b = rchar();
      let t = performance.now();
      const [s] = new TopReader({ dataDir: data }).read();
      const firstMs = performance.now() - t;
      const firstRead = rchar() - b;
      if (!s?.current_call) throw new Error(`${label}: the session or its open call was not found`);
      appendFileSync(join(dir, 'samples.jsonl'), formatSample(Date.now(), { rssBytes: 300 * MIB, cpuPct: 10, nProcs: 3, partial: false } as never));
      b = rchar();
      t = performance.now();
      warm.read();
      const refreshMs = performance.now() - t;
      const refreshRead = rchar() - b;
      if (round < 0) continue;
      first.push(firstMs);
      firstBytes.push(firstRead);
      refresh.push(refreshMs);
      refreshBytes.push(refreshRead);
    }
    const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`.padStart(10);
    console.log(`${label.padEnd(10)} ${median(first).toFixed(2).padStart(13)} ${kib(median(firstBytes))} ${median(refresh).toFixed(2).padStart(12)} ${`${median(refreshBytes)} B`.padStart(10)}`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
