import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKER_SCHEMA_VERSION, MAX_MARKER_FIELD_CHARS, appendMarker, markerField, markersPath, readMarkers, type Marker } from '../../src/telemetry/markers.js';

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

describe('markerField: a payload-given cwd, tool name or call id as a marker keeps it', () => {
  it('keeps a value of up to PATH_MAX characters whole, and bounds a longer one so equal ones stay equal and different ones apart', () => {
    const path = `/w/${'d'.repeat(MAX_MARKER_FIELD_CHARS - 3)}`;
    expect(markerField(path)).toBe(path);
    const huge = `/w/${'c'.repeat(1 << 20)}`;
    expect(markerField(huge).length).toBeLessThanOrEqual(MAX_MARKER_FIELD_CHARS);
    expect(markerField(huge)).toBe(markerField(`/w/${'c'.repeat(1 << 20)}`));
    expect(markerField(huge).startsWith('/w/ccc')).toBe(true);
    expect(markerField(`${huge}x`)).not.toBe(markerField(huge));
    // Values that differ only in a lone surrogate past the cut stay apart, and the kept text is well formed.
    const a = markerField(`${huge}\ud800`);
    const b = markerField(`${huge}\ud801`);
    expect(a).not.toBe(b);
    expect(markerField(`${'x'.repeat(MAX_MARKER_FIELD_CHARS - 40)}\ud83d\ude00${'y'.repeat(100)}`)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
