import { execFileSync } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDirForTest } from '../../../../test/support/temp.js';
import { columns } from '../../src/top/columns.js';
import { readMarkersView, MARKERS_LONG_TAIL_BYTES, MARKERS_TAIL_BYTES } from '../../src/top/markers-tail.js';
import { fitRows, renderTop } from '../../src/top/render.js';
import { PeakTracker, PEAK_WINDOW_BYTES, readLatestSample } from '../../src/top/samples-tail.js';
import { readTopSnapshot, type TopSession, type TopSnapshot } from '../../src/top/snapshot.js';

// `cordon top`'s windows on files far larger than they read (sparse files: the holes cost no disk),
// and its rendering of untrusted text within a width. The same reader on sessions written by the
// real hook and sampler: reader.test.ts.

/** Bytes {@link bytesRead} itself adds: the read of /proc/self/io between two looks. */
const PROC_IO = 4096;

/** /proc/self/io `rchar`: bytes this process has read through read(2) and friends, so far. */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

describe.runIf(process.platform === 'linux')('what top reads is bounded by its windows, not by the file', () => {
  let root: string;
  beforeEach(() => {
    root = tempDirForTest('cordon-top-window-');
  });

  it('the markers window on a 1 GiB sparse file with no newline for its first GiB', () => {
    const path = join(root, 'markers.jsonl');
    const fd = openSync(path, 'w', 0o600);
    closeSync(fd);
    truncateSync(path, 1024 * 1024 * 1024);
    const line = (event: string, ts: number, extra: object = {}) => JSON.stringify({ v: 1, event, ts, session_id: 'x', agent: 'claude-code', native_event: 'E', hook_overhead_ms: 1, hook_pid: 1, ...extra });
    appendFileSync(path, `\n${line('tool_start', 1, { call_key: 'k', tool_name: 'Bash', command: 'make' })}\n${line('tool_end', 2, { call_key: 'k', tool_name: 'Bash', command: 'make', exit_status: 'failed', exit_code: 2 })}\n`);
    const before = bytesRead();
    const view = readMarkersView(path, 3);
    expect(bytesRead() - before).toBeLessThanOrEqual(MARKERS_TAIL_BYTES + 16 * 1024 + PROC_IO);
    expect(view.endedCalls).toEqual([{ tool_name: 'Bash', command: 'make', exit_status: 'failed', exit_code: 2, ended_at: 2, duration_ms: 1 }]);
    expect(view.open).toEqual([]);
    expect(view.firstAt).toBe(1);
  });

  it('the peak follows a growing samples file by reading only what was appended', () => {
    const path = join(root, 'samples.jsonl');
    const sample = (t: number, mem: number) => `{"t":${t},"mem_mb":${mem},"cpu_pct":1,"n_procs":1,"partial":false}\n`;
    appendFileSync(path, sample(1, 900) + sample(5, 10));
    truncateSync(path, 50 * 1024 * 1024); // 50 MiB of NUL after them: not samples
    appendFileSync(path, `\n${sample(10, 20)}${sample(11, 30)}`);
    const tracker = new PeakTracker(path, 10);
    let before = bytesRead();
    expect(tracker.update()).toEqual({ mem_mb: 30, from: null });
    expect(bytesRead() - before).toBeLessThanOrEqual(PEAK_WINDOW_BYTES + PROC_IO);
    appendFileSync(path, sample(12, 70) + sample(13, 40) + '{"t":14,"mem');
    before = bytesRead();
    expect(tracker.update()).toEqual({ mem_mb: 70, from: null });
    expect(bytesRead() - before).toBeLessThan(1024);
    // The torn last line is read again once whole.
    appendFileSync(path, '_mb":99,"cpu_pct":1,"n_procs":1,"partial":false}\n');
    expect(tracker.update()).toEqual({ mem_mb: 99, from: null });
    // A call older than the window: the peak says which part of the call it covers.
    const old = new PeakTracker(path, 2);
    expect(old.update()).toEqual({ mem_mb: 99, from: 10 });
  });
});

describe.runIf(process.platform === 'linux')('a marker line longer than the markers window', () => {
  it('a 200 KB cwd (the hook caps only command and error): the session is still listed, read within the wider window, its cwd cut on screen', () => {
    const data = tempDirForTest('cordon-top-long-line-');
    const dir = join(data, 'runs', 'long');
    mkdirSync(dir, { recursive: true });
    const cwd = `/tmp/${'c'.repeat(200_000)}`;
    const marker = (event: string, ts: number, extra: object = {}) => JSON.stringify({ v: 1, event, ts, session_id: 'long-cwd', agent: 'claude-code', native_event: 'E', cwd, hook_overhead_ms: 1, hook_pid: 1, agent_pid: process.pid, ...extra });
    // Each line alone is longer than MARKERS_TAIL_BYTES, so that window holds no whole marker.
    writeFileSync(join(dir, 'markers.jsonl'), `${marker('session_start', Date.now() - 2000)}\n${marker('tool_start', Date.now() - 1000, { call_key: 'k', tool_name: 'Bash', command: 'make' })}\n`);
    expect(MARKERS_TAIL_BYTES).toBeLessThan(200_000);
    const before = bytesRead();
    const snapshot = readTopSnapshot({ dataDir: data, sort: 'cpu' });
    expect(bytesRead() - before).toBeLessThanOrEqual(MARKERS_TAIL_BYTES + MARKERS_LONG_TAIL_BYTES + 64 * 1024 + PROC_IO);
    expect(snapshot.sessions).toHaveLength(1);
    expect(snapshot.sessions[0]).toMatchObject({ session_id: 'long-cwd', agent: 'claude-code', cwd, agent_pid: process.pid, current_call: { command: 'make' } });
    const lines = renderTop(snapshot, { width: 100, home: '/home/u' });
    for (const line of lines) expect(columns(line), line).toBeLessThanOrEqual(100);
    expect(lines[2]).toMatch(/^claude-code long-cwd +\/tmp\/c+… .*Bash \d+:\d\d make$/);
  });
});

describe.runIf(process.platform === 'linux')('hostile session directories never block or mislead the reader', () => {
  it('FIFOs, links to devices and to huge files, a lock that is not one: skipped, and a live session beside them still read', () => {
    const data = tempDirForTest('cordon-top-hostile-');
    const runs = join(data, 'runs');
    const dir = (name: string): string => {
      const d = join(runs, name);
      mkdirSync(d, { recursive: true });
      return d;
    };
    execFileSync('mkfifo', [join(dir('fifo-markers'), 'markers.jsonl')]);
    symlinkSync('/dev/zero', join(dir('zero-markers'), 'markers.jsonl'));
    const huge = join(data, 'huge');
    writeFileSync(huge, '');
    truncateSync(huge, 1024 * 1024 * 1024);
    symlinkSync(huge, join(dir('huge-link'), 'markers.jsonl'));
    // A session of this (running) process, whose sampler files are hostile.
    const live = dir('live');
    const marker = { v: 1, event: 'tool_start', ts: Date.now(), session_id: 'live', agent: 'claude-code', native_event: 'PreToolUse', hook_overhead_ms: 1, hook_pid: 1, agent_pid: process.pid, call_key: 'k', tool_name: 'Bash', command: 'make' };
    writeFileSync(join(live, 'markers.jsonl'), `${JSON.stringify(marker)}\n`);
    execFileSync('mkfifo', [join(live, 'sampler.lock.1')]);
    execFileSync('mkfifo', [join(live, 'samples.jsonl')]);
    symlinkSync('/dev/zero', join(live, 'sampler.jsonl'));
    symlinkSync('/etc/passwd', join(runs, 'linked-session'));
    const before = bytesRead();
    const snapshot = readTopSnapshot({ dataDir: data, sort: 'cpu' });
    expect(bytesRead() - before).toBeLessThan(256 * 1024);
    expect(snapshot.sessions.map((s) => s.session_id)).toEqual(['live']);
    expect(snapshot.sessions[0]).toMatchObject({ agent_pid: process.pid, sampler: { state: 'died' }, now: null, current_call: { command: 'make', peak_mem_mb: null } });
  });
});

describe('rendering: untrusted text escaped, every line within the width', () => {
  const base: TopSession = {
    session_id: 'sess-\u001b]52;c;aGk=\u0007',
    dir_name: 'sess-x',
    agent: 'claude-code',
    cwd: '/home/u/\u202etxt.exe/項目',
    agent_pid: 42,
    started_at: 0,
    running_ms: 3_725_000,
    last_marker_at: 0,
    sampler: { state: 'running', pid: 43, reason: null },
    now: { sampled_at: 0, mem_mb: 1536, cpu_pct: 87.5, n_procs: 4 },
    current_call: { call_key: 'k', tool_name: 'Bash', tool: 'shell', command: 'printf "\u001b[2J" && 日本語のテスト', started_at: 0, running_ms: 42_000, peak_mem_mb: 2048, peak_from: null },
    open_calls: 2,
    last_calls: [{ tool_name: 'Edit', command: 'src/\nfile.ts', exit_status: 'failed', exit_code: 1, ended_at: 0, duration_ms: 1200 }],
  };
  const snapshot = (sessions: TopSession[]): TopSnapshot => ({ schema_version: 1, at: 0, data_dir: '/d', sort: 'cpu', sessions });

  it.each([200, 120, 80, 60, 40, 20])('width %i', (width) => {
    const lines = renderTop(snapshot([base, { ...base, session_id: 's2', sampler: { state: 'died', pid: null, reason: null }, now: null }]), { width, home: '/home/u' });
    for (const line of lines) {
      expect(columns(line), line).toBeLessThanOrEqual(width);
      expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    }
    if (width >= 120) {
      const text = lines.join('\n');
      expect(text).toContain('sess-\\u001b…');
      expect(text).toContain('~/\\u202etxt.exe/項目');
      expect(text).toContain(width >= 200 ? 'Bash 0:42 (+1) printf "\\u001b[2J" && 日本語のテスト' : 'Bash 0:42 (+1) printf "\\u001b[2J" && 日…');
      expect(text).toMatch(/1:02:05 +1\.5G +87\.5 +2\.0G/);
      expect(text).toContain('sampler died');
      expect(text).toMatch(/exit 1 +0:01 {2}Edit {2}src\/\\u000afile\.ts/);
    }
  });

  it('characters whose width terminals disagree on (unassigned, the invisible Hangul fillers) are escaped, so each row keeps its columns', () => {
    // tmux gives U+0378 no column and U+3164 two, string-width one and none: either way the CWD
    // and UP columns after the agent's cell moved on screen while the layout counted them aligned.
    const odd = { ...base, agent: '\u3164\u3164', session_id: 'id\u0378\u115f', cwd: '/w/\u1160\uffa0', current_call: { ...base.current_call!, tool_name: 'B\u034fash', command: 'ls \u{50000}' } };
    const lines = renderTop(snapshot([base, odd]), { width: 160, home: '/home/u' });
    const text = lines.join('\n');
    expect(text).not.toMatch(/[\u0378\u034f\u115f\u1160\u3164\uffa0]|\u{50000}/u);
    expect(text).toMatch(/^\\u3164… +id\\u0378… +\/w\/\\u1160\\uffa0 +1:02:05/m);
    expect(text).toContain('B\\u034fash 0:42 (+1) ls \\ud900\\udc00');
    // The UP column ends at the same column in both rows.
    const upEnd = (line: string) => columns(line.slice(0, line.indexOf('1:02:05') + 7));
    expect(upEnd(lines[4]!)).toBe(upEnd(lines[2]!));
  });

  it('sample numbers that cannot be real read as unknown (-), large real ones are scaled, never cut', () => {
    const root = tempDirForTest('cordon-top-numbers-');
    const path = join(root, 'samples.jsonl');
    const latest = (line: string) => {
      writeFileSync(path, `${line}\n`);
      return readLatestSample(path);
    };
    expect(latest('{"t":1,"mem_mb":-1e308,"cpu_pct":1e309,"n_procs":-3,"partial":false}')).toEqual({ at: 1, mem_mb: null, cpu_pct: null, n_procs: null });
    expect(latest('{"t":1,"mem_mb":1e309,"cpu_pct":-5,"n_procs":1.5,"partial":false}')).toEqual({ at: 1, mem_mb: null, cpu_pct: null, n_procs: null });
    expect(latest('{"t":1,"mem_mb":123456789012,"cpu_pct":250000,"n_procs":7,"partial":false}')).toEqual({ at: 1, mem_mb: 123456789012, cpu_pct: 250000, n_procs: 7 });
    // A peak skips a sample whose memory is not real.
    writeFileSync(path, '{"t":5,"mem_mb":100,"cpu_pct":1,"n_procs":1}\n{"t":6,"mem_mb":-1e308,"cpu_pct":1,"n_procs":1}\n');
    expect(new PeakTracker(path, 0).update()).toEqual({ mem_mb: 100, from: null });

    const row = (now: TopSession['now'], peak: number | null) => renderTop(snapshot([{ ...base, now, current_call: { ...base.current_call!, peak_mem_mb: peak } }]), { width: 120, home: '/home/u' })[2]!;
    expect(row({ sampled_at: 0, mem_mb: null, cpu_pct: null, n_procs: null }, null)).toMatch(/1:02:05 +- +- +Bash/);
    expect(row({ sampled_at: 0, mem_mb: 123456789012, cpu_pct: 250000, n_procs: 7 }, 2 ** 44)).toMatch(/1:02:05 +115\.0P +250k +16\.0E +Bash/);
    expect(row({ sampled_at: 0, mem_mb: 1048575, cpu_pct: 12345.6, n_procs: 7 }, 1023.6)).toMatch(/1:02:05 +1\.0T +12346 +1024M +Bash/);
  });

  it('the live view\'s "more lines" footer fits the width: the sentence, a shorter form, then +N more', () => {
    const lines = Array.from({ length: 25 }, (_, i) => `line ${i} ${'x'.repeat(60)}`);
    const fit = (width: number) => fitRows(lines, 8, width);
    expect(fit(80).at(-1)).toBe('… 18 more lines: a taller terminal shows them');
    expect(fit(40).at(-1)).toBe('… 18 more lines');
    expect(fit(10).at(-1)).toBe('+18 more');
    for (const width of [80, 40, 10, 5]) {
      expect(fit(width)).toHaveLength(8);
      for (const line of fit(width)) expect(columns(line), line).toBeLessThanOrEqual(width);
    }
    expect(fitRows(lines.slice(0, 3), 8, 200)).toEqual(lines.slice(0, 3));
  });

  it('no sessions says where it looked', () => {
    expect(renderTop(snapshot([]), { width: 200 })[1]).toBe('no agent session running (sessions are read from /d/runs)');
  });
});
