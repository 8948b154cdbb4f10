import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, REPO_ROOT, linkPluginRoots, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { appendLine } from '../../src/io/append.js';
import { appendMarker, markersPath, MARKER_SCHEMA_VERSION, readMarkers, type Marker } from '../../src/telemetry/markers.js';

// Issue 13 item 9: a full disk tears a marker line. An append is whole or absent, a torn tail
// left anyway is ended before the next append (so the next marker is not lost), and readers
// skip the torn line with a count (`readMarkers().badLines`, `cordon reduce`).

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-markers-torn-');
  sandbox.env.CORDON_SAMPLER = 'off';
});
afterEach(() => sandbox.cleanup());

const marker = (over: Partial<Marker> = {}): Marker => ({ v: MARKER_SCHEMA_VERSION, event: 'tool_start', ts: 1, session_id: 'torn', agent: 'claude-code', native_event: 'PreToolUse', call_key: 'k1', command: 'echo 😀 é', hook_overhead_ms: 1, hook_pid: 1, ...over });

describe('a torn fragment at the end of markers.jsonl', () => {
  it('the example: fragment, then an append: exactly one bad line, the new marker kept', () => {
    const path = appendMarker(sandbox.dataDir, marker());
    // What a write cut short by a full disk leaves: part of a line, no newline.
    appendFileSync(path, JSON.stringify(marker({ call_key: 'lost' })).slice(0, 40));
    appendMarker(sandbox.dataDir, marker({ event: 'tool_end', call_key: 'k1', exit_status: 'ok' }));
    const { markers, badLines } = readMarkers(path);
    expect(badLines).toEqual([2]);
    expect(markers.map((m) => [m.event, m.call_key])).toEqual([
      ['tool_start', 'k1'],
      ['tool_end', 'k1'],
    ]);
  });

  it('any byte prefix of a marker line (cut mid-character too), after any number of good lines', () => {
    const line = Buffer.from(JSON.stringify(marker({ call_key: 'lost', command: 'printf "😀\\u0000é"' })));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: line.length - 1 }), fc.nat({ max: 3 }), (cut, before) => {
        const path = markersPath(sandbox.dataDir, `torn-${cut}-${before}`);
        mkdirSync(join(path, '..'), { recursive: true });
        writeFileSync(path, '');
        for (let i = 0; i < before; i++) appendMarker(sandbox.dataDir, marker({ session_id: `torn-${cut}-${before}`, call_key: `b${i}` }));
        appendFileSync(path, line.subarray(0, cut));
        appendMarker(sandbox.dataDir, marker({ session_id: `torn-${cut}-${before}`, call_key: 'next' }));
        const { markers, badLines } = readMarkers(path);
        expect(badLines).toEqual([before + 1]);
        expect(markers.map((m) => m.call_key)).toEqual([...Array.from({ length: before }, (_, i) => `b${i}`), 'next']);
      }),
      { numRuns: 150 },
    );
  });
});

describe('a short write (the disk fills part-way through the append)', () => {
  it('the fragment is cut back off: the file is as before, the error is thrown, the next append is clean', () => {
    const path = appendMarker(sandbox.dataDir, marker());
    const before = readFileSync(path);
    const half = { write: (fd: number, buffer: Buffer, offset: number, length: number) => writeSync(fd, buffer, offset, Math.floor(length / 2)) };
    expect(() => appendLine(path, JSON.stringify(marker({ call_key: 'lost' })) + '\n', half)).toThrow(/short append/);
    expect(readFileSync(path)).toEqual(before);
    appendMarker(sandbox.dataDir, marker({ call_key: 'next' }));
    expect(readMarkers(path)).toMatchObject({ badLines: [], markers: [{ call_key: 'k1' }, { call_key: 'next' }] });
  });

  it('when another hook appended behind the fragment, it stays its own line and nothing else is lost', () => {
    const path = appendMarker(sandbox.dataDir, marker());
    const raced = {
      write: (fd: number, buffer: Buffer, offset: number, length: number) => {
        const n = writeSync(fd, buffer, offset, 25);
        // A concurrent hook's whole append lands right after the fragment.
        appendFileSync(path, JSON.stringify(marker({ call_key: 'other' })) + '\n');
        return n;
      },
    };
    expect(() => appendLine(path, JSON.stringify(marker({ call_key: 'lost' })) + '\n', raced)).toThrow();
    appendMarker(sandbox.dataDir, marker({ call_key: 'next' }));
    const { markers, badLines } = readMarkers(path);
    expect(badLines).toEqual([2]);
    expect(markers.map((m) => m.call_key)).toEqual(['k1', 'next']);
  });
});

describe('a real short write: the hook under a file size limit (RLIMIT_FSIZE, no root needed)', () => {
  it('the hook exits 0, leaves no fragment, and the next hook records; reduce reports torn lines with a count', async () => {
    linkPluginRoots(sandbox.dataDir, ['claude-code'].map((a) => ({ name: `@cordon/${a}`, root: join(REPO_ROOT, 'plugins', a) })));
    const path = markersPath(sandbox.dataDir, 'fsize');
    mkdirSync(join(path, '..'), { recursive: true });
    // Fill the file to just under the 1 KiB limit with one valid marker, so the next append is cut short.
    const empty = JSON.stringify(marker({ session_id: 'fsize', call_key: 'first', command: '' }));
    writeFileSync(path, JSON.stringify(marker({ session_id: 'fsize', call_key: 'first', command: 'x'.repeat(999 - empty.length) })) + '\n');
    expect(statSync(path).size).toBe(1000);
    const payload = join(sandbox.dir('in'), 'p.json');
    writeFileSync(payload, JSON.stringify({ session_id: 'fsize', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'second' }));
    // SIGXFSZ ignored (inherited through exec), so the write past the limit returns short instead of killing.
    const limited = spawnSync('/bin/bash', ['-c', `trap '' XFSZ; ulimit -f 1; exec "$0" "$1" hook --agent claude-code < "$2"`, process.execPath, CORDON_BIN, payload], { env: sandbox.env, encoding: 'utf8', timeout: 60_000 });
    expect([limited.status, limited.signal, limited.stdout, limited.stderr]).toEqual([0, null, '', '']);
    expect(statSync(path).size).toBe(1000);
    expect(readFileSync(join(sandbox.dataDir, 'logs', 'cordon.log'), 'utf8')).toContain('marker append failed');
    const free = spawnSync('/bin/bash', ['-c', `exec "$0" "$1" hook --agent claude-code < "$2"`, process.execPath, CORDON_BIN, payload], { env: sandbox.env, encoding: 'utf8', timeout: 60_000 });
    expect(free.status).toBe(0);
    expect(readMarkers(path)).toMatchObject({ badLines: [], markers: [{ call_key: 'first' }, { call_key: 'second' }] });

    // A fragment that did survive (a writer killed mid-line) is skipped and counted by reduce.
    appendFileSync(path, '{"v":1,"event":"tool_e');
    appendMarker(sandbox.dataDir, marker({ session_id: 'fsize', event: 'tool_end', call_key: 'second', exit_status: 'ok', ts: Date.now() + 1 }));
    const text = await runCordon(['reduce', '--session', 'fsize'], { env: sandbox.env });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('skipped 1 unreadable marker line');
    const jsonl = await runCordon(['reduce', '--session', 'fsize', '--jsonl'], { env: sandbox.env });
    expect(jsonl.exitCode).toBe(0);
    expect(jsonl.stderr).toContain('session fsize: skipped 1 unreadable marker line');
    expect(jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l).call_key)).toEqual(['second']);
    const json = await runCordon(['reduce', '--session', 'fsize', '--json'], { env: sandbox.env });
    expect(JSON.parse(json.stdout).sessions[0].bad_markers).toBe(1);
  }, 120_000);
});
