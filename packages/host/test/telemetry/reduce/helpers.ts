import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { appendMarker, type Marker, type MarkerEvent } from '../../../src/telemetry/markers.js';
import { formatSample } from '../../../src/telemetry/sampler/sample.js';
import { sessionDir } from '../../../src/telemetry/session-dir.js';

/** Writes a marker through the hot path's own writer. */
export function marker(dataDir: string, session: string, event: MarkerEvent, ts: number, fields: Partial<Marker> = {}): Marker {
  const m: Marker = { v: 1, event, ts, session_id: session, agent: 'claude-code', native_event: event, hook_overhead_ms: 40, hook_pid: 4242, agent_pid: 77, ...fields };
  appendMarker(dataDir, m);
  return m;
}

/** A tool_start + tool_end pair. */
export function call(dataDir: string, session: string, key: string, start: number, end: number, fields: Partial<Marker> = {}): void {
  const tool = { call_key: key, call_key_source: 'agent' as const, tool_name: 'Bash', tool: 'shell', command: `cmd ${key}`, ...fields };
  marker(dataDir, session, 'tool_start', start, { native_event: 'PreToolUse', ...tool });
  marker(dataDir, session, 'tool_end', end, { native_event: 'PostToolUse', exit_status: 'ok', ...tool });
}

/** Appends samples through the sampler's own line formatter. */
export function samples(dataDir: string, session: string, rows: ReadonlyArray<{ t: number; mb: number; cpu?: number; procs?: number; partial?: boolean }>): void {
  const dir = sessionDir(dataDir, session);
  mkdirSync(dir, { recursive: true });
  for (const r of rows) appendFileSync(join(dir, 'samples.jsonl'), formatSample(r.t, { rssBytes: r.mb * 2 ** 20, cpuPct: r.cpu ?? 0, nProcs: r.procs ?? 1, partial: r.partial ?? false, rootAlive: true }));
}
