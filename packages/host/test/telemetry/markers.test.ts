import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKER_SCHEMA_VERSION, appendMarker, markersPath, readMarkers, type Marker } from '../../src/telemetry/markers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-markers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const marker = (over: Partial<Marker> = {}): Marker => ({ v: MARKER_SCHEMA_VERSION, event: 'tool_start', ts: 1, session_id: 's-1', agent: 'claude-code', native_event: 'PreToolUse', hook_overhead_ms: 1, hook_pid: 1, ...over });

describe('markers', () => {
  it('appends one JSON line per marker under runs/<sanitised session>/markers.jsonl, mode 0600', () => {
    const path = appendMarker(dir, marker());
    appendMarker(dir, marker({ event: 'tool_end', exit_status: 'ok' }));
    expect(path).toBe(markersPath(dir, 's-1'));
    expect(path).toBe(join(dir, 'runs', 's-1', 'markers.jsonl'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readMarkers(path).markers.map((m) => m.event)).toEqual(['tool_start', 'tool_end']);
  });

  it('puts a hostile session id in a sanitised directory inside runs/', () => {
    const path = appendMarker(dir, marker({ session_id: '../../escape' }));
    expect(path.startsWith(join(dir, 'runs') + '/')).toBe(true);
    expect(readMarkers(path).markers[0]!.session_id).toBe('../../escape');
  });

  it('skips and reports unparseable lines and other schema versions, and reads a missing file as empty', () => {
    const path = appendMarker(dir, marker());
    appendFileSync(path, 'not json\n{"v":2,"event":"tool_start"}\n[1]\n');
    appendMarker(dir, marker({ event: 'tool_end' }));
    const log = readMarkers(path);
    expect(log.markers.map((m) => m.event)).toEqual(['tool_start', 'tool_end']);
    expect(log.badLines).toEqual([2, 3, 4]);
    expect(readMarkers(join(dir, 'nope.jsonl'))).toEqual({ markers: [], badLines: [] });
  });
});
