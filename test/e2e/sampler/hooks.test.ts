import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readMarkers } from '../../../packages/host/src/telemetry/markers.js';
import { sessionDir } from '../../../packages/host/src/telemetry/session-dir.js';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../support/cli.js';
import { HOOK_PAYLOADS } from '../../support/fixtures.js';
import { lockFiles, running, samplerEvents, samplerProcesses, sleep, waitFor } from '../../support/sampler.js';

// The real `cordon hook` hot path starting and stopping the session sampler, with a stand-in
// agent process (a detached node process whose pid the hooks get as CLAUDE_PID).

const FIXTURES = HOOK_PAYLOADS;
const payload = (name: string, patch: Record<string, unknown> = {}) => JSON.stringify({ ...JSON.parse(readFileSync(join(FIXTURES, `claude-code.${name}.json`), 'utf8')), ...patch });

let sandbox: Sandbox | undefined;
let agent: ChildProcess | undefined;

afterEach(() => {
  if (agent?.pid) {
    try {
      process.kill(-agent.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  if (sandbox) for (const pid of samplerProcesses(sessionDir(sandbox.dataDir, SESSION))) process.kill(pid, 'SIGKILL');
  sandbox?.cleanup();
  sandbox = undefined;
  agent = undefined;
});

const SESSION = 'cordon-e2e-sampler-session';

function setup(interval = '100'): { env: NodeJS.ProcessEnv; dir: string } {
  sandbox = makeSandbox('cordon-e2e-sampler-');
  linkPlugins(sandbox.dataDir, ['claude-code']);
  agent = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore', detached: true });
  // 200 node processes on a small machine outlast the hook's default 3 s stdin and 10 s total bounds.
  const env = { ...sandbox.env, CLAUDE_PID: String(agent.pid), CORDON_INTERVAL: interval, CORDON_HOOK_TIMEOUT_MS: '180000', CORDON_HOOK_STDIN_TIMEOUT_MS: '180000' };
  return { env, dir: sessionDir(sandbox.dataDir, SESSION) };
}

const hook = (env: NodeJS.ProcessEnv, input: string) => runCordon(['hook', '--agent', 'claude-code'], { env, input, timeoutMs: 120_000 });

describe.runIf(process.platform === 'linux')('cordon hook and the session sampler', () => {
  it('200 concurrent tool-start hooks of one session start exactly one sampler', async () => {
    const { env, dir } = setup();
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => hook(env, payload('PreToolUse.Bash', { session_id: SESSION, tool_use_id: `toolu_concurrent_${i}`, tool_input: { command: `echo ${i}` } }))));
    for (const r of results) {
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
    }
    expect(readMarkers(join(dir, 'markers.jsonl')).markers.filter((m) => m.event === 'tool_start')).toHaveLength(200);
    const start = await waitFor('sampler start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    // A window in which no second sampler may appear (one started by a losing hook would take a
    // Node start-up to write its event: 2 s is generous even for a loaded machine).
    await sleep(2000);
    expect(samplerEvents(dir).filter((e) => e.event === 'start')).toHaveLength(1);
    expect(samplerEvents(dir).filter((e) => e.event === 'stop')).toHaveLength(0);
    expect(lockFiles(dir)).toEqual(['sampler.lock.1']);
    expect(samplerProcesses(dir)).toEqual([start.pid]);
    expect(start.root_pid).toBe(agent!.pid);
  }, 240_000);

  it('a turn end (Stop) leaves the sampler running; SessionEnd stops it and it exits', async () => {
    const { env, dir } = setup();
    expect((await hook(env, payload('SessionStart', { session_id: SESSION }))).exitCode).toBe(0);
    const start = await waitFor('sampler start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    expect((await hook(env, payload('Stop', { session_id: SESSION }))).exitCode).toBe(0);
    expect(existsSync(join(dir, 'STOP'))).toBe(false);
    // A window in which the sampler must NOT stop: longer than its once-a-second check for STOP.
    await sleep(1500);
    expect(running(start.pid)).toBe(true);
    expect(readMarkers(join(dir, 'markers.jsonl')).markers.map((m) => m.event)).toEqual(['session_start', 'turn_end']);
    expect((await hook(env, payload('SessionEnd', { session_id: SESSION }))).exitCode).toBe(0);
    const endTs = readMarkers(join(dir, 'markers.jsonl')).markers.find((m) => m.event === 'session_end')!.ts;
    const stop = await waitFor('sampler stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    expect(stop).toMatchObject({ pid: start.pid, reason: 'stop-file' });
    expect(stop.t).toBeGreaterThanOrEqual(Math.floor(endTs));
    await waitFor('sampler exit', () => (running(start.pid) ? undefined : true));
  }, 120_000);

  it('reduce reports a sampled session as live, and right after SessionEnd waits for the sampler\'s last samples', async () => {
    const { env, dir } = setup('100');
    const started = await hook(env, payload('SessionStart', { session_id: SESSION }));
    expect([started.exitCode, started.stdout, started.stderr]).toEqual([0, '', '']);
    await waitFor('samples', () => (existsSync(join(dir, 'samples.jsonl')) && readFileSync(join(dir, 'samples.jsonl'), 'utf8').split('\n').length > 3 ? true : undefined));
    const live = await runCordon(['reduce', '--session', SESSION, '--json'], { env });
    expect(live.exitCode, live.stderr).toBe(0);
    expect(JSON.parse(live.stdout).sessions[0]).toMatchObject({ live: true, ended: false, sampler_stop_reasons: [] });
    const text = await runCordon(['reduce', '--session', SESSION], { env });
    expect(text.stdout.split('\n')[0]).toContain('live: still being sampled, these numbers are partial');
    // The hook path does not wait: SessionEnd exits 0 and prints nothing, as before.
    const ended = await hook(env, payload('SessionEnd', { session_id: SESSION }));
    expect([ended.exitCode, ended.stdout, ended.stderr]).toEqual([0, '', '']);
    // reduce at once: the sampler looks for STOP once a second, reduce waits for it to finish.
    const reduced = await runCordon(['reduce', '--session', SESSION, '--json'], { env });
    expect(reduced.exitCode, reduced.stderr).toBe(0);
    const s = JSON.parse(reduced.stdout).sessions[0];
    const written = readFileSync(join(dir, 'samples.jsonl'), 'utf8').trim().split('\n').length;
    expect(s).toMatchObject({ live: false, ended: true, sampler_stop_reasons: ['stop-file'], n_samples: written });
    // The span starts at the marker whose hook started the sampler, not at its first tick.
    const startTs = readMarkers(join(dir, 'markers.jsonl')).markers.find((m) => m.event === 'session_start')!.ts;
    const firstSample = JSON.parse(readFileSync(join(dir, 'samples.jsonl'), 'utf8').split('\n')[0]!).t;
    expect(s.span_start_ts).toBe(Math.round(startTs));
    expect(s.span_start_ts).toBeLessThan(firstSample);
  }, 120_000);

  it('SIGKILL of the agent (no session end) stops the sampler within two intervals', async () => {
    const { env, dir } = setup('250');
    expect((await hook(env, payload('SessionStart', { session_id: SESSION }))).exitCode).toBe(0);
    const start = await waitFor('sampler start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    const samples = (): Array<{ t: number }> => (existsSync(join(dir, 'samples.jsonl')) ? readFileSync(join(dir, 'samples.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
    await waitFor('two samples', () => (samples().length >= 2 ? true : undefined));
    const killedAt = Date.now();
    process.kill(-agent!.pid!, 'SIGKILL');
    const stop = await waitFor('sampler stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    expect(stop.reason).toBe('agent-exit');
    // Two intervals counted in ticks: at most two samples after the kill (a loaded machine stretches the intervals).
    expect(samples().filter((x) => x.t > killedAt).length).toBeLessThanOrEqual(2);
    await waitFor('sampler exit', () => (running(start.pid) ? undefined : true));
  }, 120_000);
});
