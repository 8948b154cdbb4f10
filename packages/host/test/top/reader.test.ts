import { appendFileSync, mkdirSync, openSync, closeSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { waitFor } from '../../../../test/support/wait.js';
import { columns } from '../../src/top/columns.js';
import { readMarkersView, MARKERS_TAIL_BYTES } from '../../src/top/markers-tail.js';
import { renderTop } from '../../src/top/render.js';
import { PeakTracker, PEAK_WINDOW_BYTES } from '../../src/top/samples-tail.js';
import { readTopSnapshot, TopReader, type TopSession, type TopSnapshot } from '../../src/top/snapshot.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { startFakeSession, stopAll, type FakeSession } from './sessions.js';

// The snapshot reader of `cordon top` on session directories written by the real `cordon hook`
// (captured payloads, run as children of stand-in agent processes) and the real sampler, and
// the bound on what it reads: a session's files are read from their ends only, whatever their size.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let sessions: FakeSession[] = [];

beforeEach(() => {
  sandbox = makeSandbox('cordon-top-');
  linkPlugins(sandbox.dataDir, ['claude-code', 'codex', 'gemini']);
  env = { ...sandbox.env, CORDON_INTERVAL: '100' };
});
afterEach(() => {
  stopAll(sessions);
  sessions = [];
  sandbox.cleanup();
});

function session(agent: 'claude-code' | 'codex' | 'gemini', sessionId: string, options: { cwd?: string; heldMb?: number } = {}): FakeSession {
  const s = startFakeSession({ agent, sessionId, env, dataDir: sandbox.dataDir, cwd: options.cwd ?? `/work/${sessionId}`, heldMb: options.heldMb });
  sessions.push(s);
  return s;
}

const snap = (sort: 'cpu' | 'mem' | 'time' | 'call' | 'cwd' = 'cpu'): TopSnapshot => readTopSnapshot({ dataDir: sandbox.dataDir, sort });
const find = (id: string, s = snap()): TopSession | undefined => s.sessions.find((x) => x.session_id === id);

/** Waits until the session runs with a live sampler that has written a sample. */
function sampled(id: string): Promise<TopSession> {
  return waitFor(() => {
    const s = find(id);
    return s?.sampler.state === 'running' && s.now ? s : undefined;
  }, { what: () => `a sample of ${id}: ${JSON.stringify(find(id))}`, timeoutMs: 60_000 });
}

/** Bytes {@link bytesRead} itself adds: the read of /proc/self/io between two looks. */
const PROC_IO = 4096;

/** /proc/self/io `rchar`: bytes this process has read through read(2) and friends, so far. */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

describe.runIf(process.platform === 'linux')('the snapshot reader on real sessions', () => {
  it('no sessions: no runs directory, and an empty one', () => {
    expect(snap().sessions).toEqual([]);
    mkdirSync(join(sandbox.dataDir, 'runs'));
    expect(snap()).toMatchObject({ schema_version: 1, data_dir: sandbox.dataDir, sort: 'cpu', sessions: [] });
  });

  it('one session: agent, id, cwd, pid, the tree now, the current call with its peak, then the call ended', async () => {
    const s = session('claude-code', 'top-one-claude', { cwd: '/work/one' });
    expect(await s.event('sessionStart')).toBe(0);
    expect(await s.event('start', { command: 'npm test', callId: 'toolu_top_1' })).toBe(0);
    const running = await sampled('top-one-claude');
    expect(running).toMatchObject({ agent: 'claude-code', dir_name: 'top-one-claude', cwd: '/work/one', agent_pid: s.pid, open_calls: 1, last_calls: [] });
    expect(running.sampler.pid).toBeGreaterThan(0);
    expect(running.now!.mem_mb).toBeGreaterThan(1);
    expect(running.now!.n_procs).toBeGreaterThanOrEqual(1);
    expect(running.running_ms).toBeGreaterThanOrEqual(0);
    const call = running.current_call!;
    expect(call).toMatchObject({ call_key: 'toolu_top_1', tool_name: 'Bash', tool: 'shell', command: 'npm test', peak_from: null });
    // The peak covers the call's samples, the newest among them.
    const peak = await waitFor(() => find('top-one-claude')?.current_call?.peak_mem_mb ?? undefined, { what: 'a peak' });
    expect(peak).toBeGreaterThan(1);

    expect(await s.event('end', { command: 'npm test', callId: 'toolu_top_1' })).toBe(0);
    const ended = find('top-one-claude')!;
    expect(ended.current_call).toBeNull();
    expect(ended.open_calls).toBe(0);
    expect(ended.last_calls).toHaveLength(1);
    expect(ended.last_calls[0]).toMatchObject({ tool_name: 'Bash', command: 'npm test', exit_status: 'ok' });
    expect(ended.last_calls[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('several agents: one row each, sorted by memory, CPU, running time, directory', async () => {
    const a = session('claude-code', 'top-many-a', { cwd: '/work/zz', heldMb: 0 });
    const b = session('codex', 'top-many-b', { cwd: '/work/aa', heldMb: 120 });
    const c = session('gemini', 'top-many-c', { cwd: '/work/mm', heldMb: 50 });
    // Started in this order: a runs longest.
    for (const s of [a, b, c]) expect(await s.event('start', { command: `work of ${s.sessionId}` })).toBe(0);
    for (const s of [a, b, c]) await sampled(s.sessionId);
    // The held memory shows in the samples once the trees are read after it was touched.
    await waitFor(() => {
      const m = snap('mem').sessions.map((x) => x.session_id);
      return m.join() === 'top-many-b,top-many-c,top-many-a';
    }, { what: () => `memory order: ${JSON.stringify(snap('mem').sessions.map((x) => [x.session_id, x.now?.mem_mb]))}`, timeoutMs: 60_000 });
    const all = snap('time');
    expect(all.sessions.map((x) => x.agent)).toEqual(['claude-code', 'codex', 'gemini']);
    expect(all.sessions.map((x) => x.agent_pid)).toEqual([a.pid, b.pid, c.pid]);
    expect(snap('cwd').sessions.map((x) => x.cwd)).toEqual(['/work/aa', '/work/mm', '/work/zz']);
    expect(snap('call').sessions.map((x) => x.session_id)).toEqual(['top-many-a', 'top-many-b', 'top-many-c']);
    const byCpu = snap('cpu').sessions.map((x) => x.now!.cpu_pct);
    expect([...byCpu].sort((x, y) => y - x)).toEqual(byCpu);
  });

  it('a sampler killed while its agent runs: shown as died, without a sample; the agent killed: gone', async () => {
    const s = session('claude-code', 'top-died');
    expect(await s.event('start', { command: 'sleep 1000' })).toBe(0);
    const running = await sampled('top-died');
    process.kill(running.sampler.pid!, 'SIGKILL');
    const died = await waitFor(() => {
      const x = find('top-died');
      return x?.sampler.state === 'died' ? x : undefined;
    }, { what: () => `the sampler seen dead: ${JSON.stringify(find('top-died'))}` });
    expect(died.now).toBeNull();
    expect(died.agent_pid).toBe(s.pid);
    expect(died.current_call?.command).toBe('sleep 1000');
    s.kill();
    await waitFor(() => find('top-died') === undefined, { what: 'the session gone with its agent' });
  });

  it('a session end ends the session, a turn end closes a call whose end never came', async () => {
    const s = session('claude-code', 'top-turns');
    expect(await s.event('start', { command: 'refused by the user', callId: 'toolu_never_ends' })).toBe(0);
    await sampled('top-turns');
    expect(find('top-turns')!.current_call?.command).toBe('refused by the user');
    expect(await s.event('turnEnd')).toBe(0);
    expect(find('top-turns')!.current_call).toBeNull();
    expect(await s.event('sessionEnd')).toBe(0);
    expect(find('top-turns')).toBeUndefined();
  });

  it('a sampler stopped by a signal: shown stopped with its reason; the next call starts a new one', async () => {
    const s = session('claude-code', 'top-stopped');
    expect(await s.event('start', { command: 'one', callId: 'toolu_stop_1' })).toBe(0);
    const first = await sampled('top-stopped');
    process.kill(first.sampler.pid!, 'SIGTERM');
    const stopped = await waitFor(() => {
      const x = find('top-stopped');
      return x?.sampler.state === 'stopped' ? x : undefined;
    }, { what: () => `the sampler's stop: ${JSON.stringify(find('top-stopped'))}` });
    expect(stopped.sampler).toEqual({ state: 'stopped', pid: first.sampler.pid, reason: 'signal' });
    expect(stopped.now).toBeNull();
    expect(renderTop(snap(), { width: 160 }).join('\n')).toContain('sampler stopped: signal');
    expect(await s.event('start', { command: 'two', callId: 'toolu_stop_2' })).toBe(0);
    const again = await sampled('top-stopped');
    expect(again.sampler.pid).not.toBe(first.sampler.pid);
    expect(again.open_calls).toBe(2);
    expect(again.current_call?.command).toBe('two');
  });

  it('no sampler at all (CORDON_SAMPLER=off): the agent alone says the session runs', async () => {
    env = { ...env, CORDON_SAMPLER: 'off' };
    const s = session('codex', 'top-unsampled');
    expect(await s.event('start', { command: 'ls' })).toBe(0);
    const x = await waitFor(() => find('top-unsampled'), { what: 'the unsampled session' });
    expect(x).toMatchObject({ sampler: { state: 'none', pid: null }, now: null, agent_pid: s.pid, agent: 'codex' });
    expect(renderTop(snap(), { width: 120 }).join('\n')).toContain('no sampler');
  });
});

describe.runIf(process.platform === 'linux')('what top reads is bounded by the window, not the file', () => {
  /** A file of `bytes` that are not markers: a sparse hole (NUL bytes) after some torn JSON and invalid UTF-8, ended by a newline. */
  function corruptHead(path: string, bytes: number): void {
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
    const fd = openSync(path, 'w', 0o600);
    writeSync(fd, Buffer.concat([Buffer.from('{"v":1,"event":"tool_start","ts":'), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from('\n{torn')]));
    closeSync(fd);
    truncateSync(path, bytes - 1);
    appendFileSync(path, '\n');
  }

  it('100 MB of corrupt markers and samples before the real ones: the same snapshot, a few hundred KiB read', async () => {
    const dir = sessionDir(sandbox.dataDir, 'top-huge');
    corruptHead(join(dir, 'markers.jsonl'), 100 * 1024 * 1024);
    corruptHead(join(dir, 'samples.jsonl'), 100 * 1024 * 1024);
    const s = session('claude-code', 'top-huge');
    for (let i = 0; i < 5; i++) {
      expect(await s.event('start', { command: `step ${i}`, callId: `toolu_huge_${i}` })).toBe(0);
      if (i < 4) expect(await s.event('end', { command: `step ${i}`, callId: `toolu_huge_${i}` })).toBe(0);
    }
    await sampled('top-huge');
    const reader = new TopReader({ dataDir: sandbox.dataDir });
    const before = bytesRead();
    const [huge] = reader.read();
    const read = bytesRead() - before;
    expect(huge).toMatchObject({ session_id: 'top-huge', agent: 'claude-code', open_calls: 1, current_call: { command: 'step 4' } });
    expect(huge!.last_calls.map((c) => c.command)).toEqual(['step 3', 'step 2', 'step 1']);
    expect(huge!.now!.mem_mb).toBeGreaterThan(1);
    // The first marker of the file is not a marker: the session's start is the oldest one in the window.
    expect(huge!.started_at).not.toBeNull();
    // The markers' tail, their head's first line, the newest sample, the sampler's events, and
    // the peak's window (at most PEAK_WINDOW_BYTES: here the whole window is the hole's end).
    expect(read).toBeLessThan(MARKERS_TAIL_BYTES + 16 * 1024 + 4 * 1024 + 8 * 1024 + PEAK_WINDOW_BYTES + 64 * 1024);
    // A second look reads only what changed: the markers are unchanged, the peak continues.
    const again = bytesRead();
    reader.read();
    expect(bytesRead() - again).toBeLessThan(64 * 1024);
  });

  it('the markers window on a 1 GiB sparse file with no newline for its first GiB', () => {
    const path = join(sandbox.root, 'markers.jsonl');
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
    const path = join(sandbox.root, 'samples.jsonl');
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

  it('no sessions says where it looked', () => {
    expect(renderTop(snapshot([]), { width: 200 })[1]).toBe('no agent session running (sessions are read from /d/runs)');
  });
});
