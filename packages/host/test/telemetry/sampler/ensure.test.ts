import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { samplerSettings } from '../../../src/telemetry/sampler/config.js';
import { ensureSampler, samplerEntry, stopSampler } from '../../../src/telemetry/sampler/ensure.js';
import { lockPath } from '../../../src/telemetry/sampler/lock.js';
import { awaitSamplerStop, awaitSamplerStopSync, liveSampler } from '../../../src/telemetry/sampler/state.js';
import { fakeAgent, killGroup, running, samplerEvents, sleep, waitFor } from '../../../../../test/support/sampler.js';

const linux = process.platform === 'linux';
let root: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let agent: ChildProcess | undefined;
const samplers: number[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-ensure-'));
  dir = join(root, 'runs', 'session-1');
  env = { ...process.env, CORDON_DATA_DIR: join(root, 'data'), CORDON_CACHE_DIR: join(root, 'cache'), CORDON_CONFIG_DIR: join(root, 'config'), CORDON_INTERVAL: '50' };
  delete env.CORDON_SAMPLER;
  agent = fakeAgent();
});
afterEach(async () => {
  killGroup(agent?.pid);
  for (const pid of samplers.splice(0)) if (running(pid)) process.kill(pid, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** The samples written so far. */
function samples(): Array<{ t: number }> {
  const path = join(dir, 'samples.jsonl');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { t: number }) : [];
}

function start(extra: NodeJS.ProcessEnv = {}) {
  const r = ensureSampler({ dir, rootPid: agent!.pid!, env: { ...env, ...extra } });
  if (r.started) samplers.push(r.pid);
  return r;
}

describe('samplerSettings', () => {
  it('defaults to 250 ms and 30 min idle, floors the interval at 10 ms, ignores junk', () => {
    expect(samplerSettings({})).toEqual({ intervalMs: 250, idleMs: 1_800_000, sampler: undefined });
    expect(samplerSettings({ CORDON_INTERVAL: '1' }).intervalMs).toBe(10);
    expect(samplerSettings({ CORDON_INTERVAL: 'fast', CORDON_SAMPLER_IDLE: '-3' })).toMatchObject({ intervalMs: 250, idleMs: 1_800_000 });
    expect(samplerSettings({ CORDON_INTERVAL: '100', CORDON_SAMPLER_IDLE: '2.5', CORDON_SAMPLER: 'off' })).toEqual({ intervalMs: 100, idleMs: 2500, sampler: 'off' });
  });
});

describe.runIf(linux)('ensureSampler', () => {
  it('starts one fully detached sampler that writes samples; a second call finds it running', async () => {
    const before = Date.now();
    const first = start();
    expect(first).toMatchObject({ started: true, generation: 1 });
    if (!first.started) return;
    expect(start()).toEqual({ started: false, reason: 'running', pid: first.pid, generation: 1 });
    const startEvent = await waitFor('start event', () => samplerEvents(dir).find((e) => e.event === 'start'));
    expect(startEvent).toMatchObject({ pid: first.pid, generation: 1, root_pid: agent!.pid, interval_ms: 50, sampler: 'linux-proc' });
    // Own session (setsid) and every stdio on /dev/null (the agent hook docs; docs/references.md, never hold the hook open).
    const stat = readFileSync(`/proc/${first.pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    expect(Number(fields[3])).toBe(first.pid); // field 6 `session`
    for (const fd of [0, 1, 2]) expect(readlinkSync(`/proc/${first.pid}/fd/${fd}`)).toBe('/dev/null');
    // Node without V8's memory reducer (ensure.ts SAMPLER_NODE_FLAGS), then the built sampler entry.
    const argv = readFileSync(`/proc/${first.pid}/cmdline`, 'latin1').split('\0');
    expect(argv.slice(1, 3)).toEqual(['--no-memory-reducer', samplerEntry()]);
    await waitFor('samples', () => (existsSync(join(dir, 'samples.jsonl')) && readFileSync(join(dir, 'samples.jsonl'), 'utf8').split('\n').length > 5 ? true : undefined));
    const sample = JSON.parse(readFileSync(join(dir, 'samples.jsonl'), 'utf8').split('\n')[0]!);
    expect(Object.keys(sample)).toEqual(['t', 'mem_mb', 'cpu_pct', 'n_procs', 'partial']);
    expect(sample.n_procs).toBe(1);
    // Epoch milliseconds of this clock: taken after the start and before now.
    expect(sample.t).toBeGreaterThanOrEqual(before - 1);
    expect(sample.t).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('stops on STOP, and a later call starts generation 2 after removing STOP', async () => {
    const first = start();
    await waitFor('start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    stopSampler(dir);
    const stop = await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    expect(stop.reason).toBe('stop-file');
    await waitFor('sampler exit', () => (first.started && !running(first.pid) ? true : undefined));
    const second = start();
    expect(second).toMatchObject({ started: true, generation: 2 });
    expect(existsSync(join(dir, 'STOP'))).toBe(false);
    await waitFor('second start', () => samplerEvents(dir).filter((e) => e.event === 'start')[1]);
  });

  it('awaitSamplerStop returns once the sampler stopped and wrote its last samples; liveSampler says whether one still samples', async () => {
    expect(await awaitSamplerStop(dir, 1000)).toBe('none'); // no lock yet
    const since = Date.now() - 300;
    const first = ensureSampler({ dir, rootPid: agent!.pid!, env: { ...env, CORDON_INTERVAL: '200' }, since });
    if (first.started) samplers.push(first.pid);
    expect(liveSampler(dir)).toMatchObject({ pid: first.started ? first.pid : -1, generation: 1 });
    // Still sampling: a short wait times out, and it has not stopped.
    expect(awaitSamplerStopSync(dir, 50)).toBe('timeout');
    expect(await waitFor('start', () => samplerEvents(dir).find((e) => e.event === 'start'))).toMatchObject({ since });
    stopSampler(dir);
    // STOP is looked for once a second: the wait covers it (60 s: a loaded machine slows the
    // sampler's ticks, and a sampler that never stops still times out), and everything is written on return.
    expect(await awaitSamplerStop(dir, 60_000)).toBe('stopped');
    expect(samplerEvents(dir).filter((e) => e.event === 'stop')).toEqual([expect.objectContaining({ reason: 'stop-file' })]);
    const written = samples().length;
    expect(written).toBeGreaterThanOrEqual(1);
    expect(liveSampler(dir)).toBeUndefined();
    expect(awaitSamplerStopSync(dir, 1000)).toBe('none');
    await sleep(300);
    expect(samples().length).toBe(written);
  });

  it('stops within two intervals when the agent is SIGKILLed (no session end)', async () => {
    const r = start({ CORDON_INTERVAL: '250' });
    await waitFor('start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    await waitFor('two samples', () => samples().length >= 2 || undefined);
    const killedAt = Date.now();
    killGroup(agent!.pid);
    const stop = await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    expect(stop.reason).toBe('agent-exit');
    // Counted in ticks, not milliseconds (a loaded machine stretches both the intervals and the test's clock reads).
    expect(samples().filter((s) => s.t > killedAt).length).toBeLessThanOrEqual(2);
    await waitFor('sampler exit', () => (r.started && !running(r.pid) ? true : undefined));
  });

  it('stops on SIGTERM (it blocks between ticks), writing every sample it took', async () => {
    const r = start();
    await waitFor('start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    await waitFor('two samples', () => samples().length >= 2 || undefined);
    if (r.started) process.kill(r.pid, 'SIGTERM');
    // (How soon is the benches' business: the handler runs at the event loop's next turn, once a second.)
    const stop = await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    expect(stop.reason).toBe('signal');
    expect(samples()).toHaveLength(stop.ticks as number);
    await waitFor('sampler exit', () => (r.started && !running(r.pid) ? true : undefined));
  });

  it('stops after the idle timeout when no marker is written', async () => {
    start({ CORDON_SAMPLER_IDLE: '1' });
    const stop = await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    expect(stop.reason).toBe('idle');
  });

  it('keeps sampling while markers keep coming, then idles out', async () => {
    mkdirSync(dir, { recursive: true });
    // A window in which the sampler must NOT stop: markers every 300 ms against an idle timeout of
    // 5 s, generous enough for a test process that a loaded machine leaves waiting.
    start({ CORDON_SAMPLER_IDLE: '5' });
    for (let i = 0; i < 8; i++) {
      writeFileSync(join(dir, 'markers.jsonl'), `{"i":${i}}\n`, { flag: 'a' });
      await sleep(300);
    }
    expect(samplerEvents(dir).some((e) => e.event === 'stop')).toBe(false);
    expect((await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'))).reason).toBe('idle');
  });

  it('never stops for idle while a tool call is open, and idles out once it ends', async () => {
    mkdirSync(dir, { recursive: true });
    const marker = (event: string, key: string) => JSON.stringify({ v: 1, event, ts: Date.now(), session_id: 's', agent: 'claude-code', native_event: 'x', call_key: key, tool_name: 'Bash' });
    // Another call that started and ended: only the open one keeps the sampler going.
    writeFileSync(join(dir, 'markers.jsonl'), `${marker('tool_start', 'done')}\n${marker('tool_end', 'done')}\n${marker('tool_start', 'long')}\n`);
    start({ CORDON_SAMPLER_IDLE: '0.3' });
    await waitFor('start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    // Far past the idle timeout with no new marker: the samples keep coming.
    const countSamples = () => (existsSync(join(dir, 'samples.jsonl')) ? readFileSync(join(dir, 'samples.jsonl'), 'utf8').trim().split('\n').length : 0);
    await waitFor('samples well past the idle timeout', () => (countSamples() >= 3000 / 100 ? true : undefined), 30_000);
    expect(samplerEvents(dir).some((e) => e.event === 'stop')).toBe(false);
    writeFileSync(join(dir, 'markers.jsonl'), `${marker('tool_end', 'long')}\n`, { flag: 'a' });
    expect((await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'), 10_000)).reason).toBe('idle');
  });

  it('steps aside when a newer generation appears', async () => {
    start();
    await waitFor('start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    writeFileSync(lockPath(dir, 2), JSON.stringify({ pid: process.pid, role: 'hook', generation: 2, at: Date.now() }));
    expect((await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'))).reason).toBe('superseded');
  });

  it('does nothing when CORDON_SAMPLER=off or the root is gone', () => {
    expect(start({ CORDON_SAMPLER: 'off' })).toEqual({ started: false, reason: 'disabled' });
    expect(ensureSampler({ dir, rootPid: 2 ** 22 + 5, env })).toEqual({ started: false, reason: 'no-root' });
    expect(existsSync(dir)).toBe(false);
  });

  it('marks the session unsupported when no sampler serves the platform, and stops trying', async () => {
    start({ CORDON_SAMPLER: 'no-such-sampler' });
    const stop = await waitFor('stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    expect(stop.reason).toBe('unsupported');
    expect(JSON.parse(readFileSync(join(dir, 'sampler.unsupported'), 'utf8'))).toEqual({ platform: process.platform, wanted: 'no-such-sampler' });
    expect(start()).toEqual({ started: false, reason: 'unsupported' });
  });
});
