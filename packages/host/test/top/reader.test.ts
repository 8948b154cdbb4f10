import { appendFileSync, mkdirSync, openSync, closeSync, readFileSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { waitFor } from '../../../../test/support/wait.js';
import { MARKERS_TAIL_BYTES } from '../../src/top/markers-tail.js';
import { renderTop } from '../../src/top/render.js';
import { PEAK_WINDOW_BYTES } from '../../src/top/samples-tail.js';
import { readTopSnapshot, TopReader, type TopSession, type TopSnapshot } from '../../src/top/snapshot.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { startFakeSession, stopAll, type FakeSession } from './sessions.js';

// The snapshot reader of `cordon top` on session directories written by the real `cordon hook`
// (captured payloads, run as children of stand-in agent processes) and the real sampler, and
// the bound on what it reads: a session's files are read from their ends only, whatever their size
// (window.test.ts has the windows alone, and the rendering).

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
    const byCpu = snap('cpu').sessions.map((x) => x.now!.cpu_pct ?? -1);
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
    const t0 = Date.now();
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
    expect(huge!.started_at).toBeGreaterThanOrEqual(t0 - 1000);
    expect(huge!.started_at).toBeLessThan(huge!.current_call!.started_at);
    // The markers' tail, their head's first line, the newest sample, the sampler's events, and
    // the peak's window (at most PEAK_WINDOW_BYTES: here the whole window is the hole's end).
    expect(read).toBeLessThan(MARKERS_TAIL_BYTES + 16 * 1024 + 4 * 1024 + 8 * 1024 + PEAK_WINDOW_BYTES + 64 * 1024);
    // A second look reads only what changed: the markers are unchanged, the peak continues.
    const again = bytesRead();
    reader.read();
    expect(bytesRead() - again).toBeLessThan(64 * 1024);
  });
});
