import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readMarkers } from '../../../packages/host/src/telemetry/markers.js';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../support/cli.js';
import { FakeAnthropic, claudeSession, killAgents, step } from '../../support/fake-models/index.js';
import { lockFiles, running, samplerEvents, samplerProcesses, waitFor } from '../../support/sampler.js';

// The real Claude Code, hooks installed by `cordon install-hooks --write`, against the fake
// Anthropic server: the hook hot path starts one sampler for the session, and `cordon reduce`
// attributes a 300 MB allocation to the one call that made it.

const NODE = JSON.stringify(process.execPath);
/**
 * The 300 MB call: holds its allocation until the session's sampler has written five more samples
 * (under the data dir the tool inherits, CORDON_DATA_DIR), one minute at most, then prints `held <bytes>`.
 */
const BIG = `${NODE} -e "const fs = require('fs'), { join } = require('path'); const b = Buffer.alloc(300 * 2 ** 20, 1); const runs = join(process.env.CORDON_DATA_DIR, 'runs'); const n = () => fs.readdirSync(runs).reduce((a, d) => { try { return a + fs.readFileSync(join(runs, d, 'samples.jsonl'), 'utf8').split('\\n').length - 1; } catch { return a; } }, 0); const n0 = n(), end = Date.now() + 60000; const t = setInterval(() => { if (n() >= n0 + 5 || Date.now() > end) { clearInterval(t); console.log('held', b.length); } }, 50)"`;

/**
 * Tags the long tool call, whose process outlives the SIGKILLed agent, so afterEach can end it.
 * Unique per test process because afterEach kills by it across all of /proc: a fixed tag let a
 * copy of this suite running at the same time (another checkout's `npm test`) kill this call, so
 * Claude saw it fail, finished the session and fired SessionEnd, and the sampler stopped on
 * `STOP`. It does not contain the old fixed tag `cordon-e2e-sampler-orphan`, which older copies kill by.
 */
const ORPHAN_TAG = `cordon-sampler-long-call-${process.pid}-${Date.now()}`;

let sandbox: Sandbox | undefined;
let server: FakeAnthropic | undefined;

afterEach(async () => {
  killAgents();
  for (const pid of pidsWithArg(ORPHAN_TAG)) process.kill(pid, 'SIGKILL');
  await server?.close();
  if (sandbox) for (const dir of sessionDirs(sandbox.dataDir)) for (const pid of samplerProcesses(dir)) process.kill(pid, 'SIGKILL');
  sandbox?.cleanup();
  sandbox = undefined;
  server = undefined;
});

function pidsWithArg(tag: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(tag) && Number(n) !== process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function sessionDirs(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, 'runs')).map((d) => join(dataDir, 'runs', d));
  } catch {
    return [];
  }
}

/**
 * What the session directories and cordon's log say, for assertion messages: `extra` first, then
 * per session its files (with mtimes), markers, sampler events, and the tail of
 * `logs/cordon.log`, so a failure shows who wrote what and when.
 */
function sessionReport(dataDir: string, extra: Record<string, unknown> = {}): string {
  const lines = [JSON.stringify(extra)];
  for (const dir of sessionDirs(dataDir)) {
    lines.push(`session ${dir}`);
    for (const name of readdirSync(dir).sort()) lines.push(`  file ${name} mtime=${statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs}`);
    for (const m of readMarkers(join(dir, 'markers.jsonl')).markers) lines.push(`  marker ${JSON.stringify(m)}`);
    for (const e of samplerEvents(dir)) lines.push(`  sampler ${JSON.stringify(e)}`);
  }
  const log = join(dataDir, 'logs', 'cordon.log');
  if (existsSync(log)) lines.push('log:', ...readFileSync(log, 'utf8').trim().split('\n').slice(-40));
  return lines.join('\n');
}

/** {@link waitFor}, but a timeout carries the {@link sessionReport} of the current sandbox. */
async function waitOrReport<T>(what: string, pick: () => T | undefined, ms?: number): Promise<T> {
  try {
    return await waitFor(what, pick, ms);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${sandbox ? sessionReport(sandbox.dataDir, { toolResults: server?.toolResults() }) : ''}`);
  }
}

async function claudeWithHooks(steps: Parameters<typeof FakeAnthropic.start>[0]['steps'], env: NodeJS.ProcessEnv = {}) {
  sandbox = makeSandbox('cordon-e2e-sampler-claude-');
  const workdir = sandbox.dir('work');
  server = await FakeAnthropic.start({ workdir, steps });
  linkPlugins(sandbox.dataDir, ['claude-code']);
  const session = claudeSession({ origin: server.origin, home: sandbox.dir('home'), workdir, env: { ...sandbox.env, ...env } });
  const install = await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env: session.env, cwd: workdir });
  expect(install.exitCode, install.stderr + install.stdout).toBe(0);
  return session;
}

describe.runIf(process.platform === 'linux')('session sampler with the real Claude Code', () => {
  it('attributes a 300 MB allocation to its call; one sampler ran and exited after the session ended', async () => {
    const session = await claudeWithHooks([step.shell('echo cheap-before'), step.shell(BIG), step.shell('ls -la'), step.text('All done.')]);
    const run = await session.run();
    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    expect(server!.toolResults()[1]!.text).toContain(`held ${300 * 2 ** 20}`);

    const [dir, ...others] = sessionDirs(sandbox!.dataDir);
    expect(others).toEqual([]);
    const stop = await waitOrReport('sampler stop', () => samplerEvents(dir!).find((e) => e.event === 'stop'));
    const report = sessionReport(sandbox!.dataDir, { run: { pid: run.pid, exitCode: run.exitCode, signal: run.signal } });
    const markers = readMarkers(join(dir!, 'markers.jsonl')).markers;
    const sessionEnd = markers.find((m) => m.event === 'session_end');
    expect(sessionEnd, report).toBeDefined();
    // Exactly one sampler process ran for the session, and it exited after the session ended.
    const starts = samplerEvents(dir!).filter((e) => e.event === 'start');
    expect(starts, report).toHaveLength(1);
    expect(lockFiles(dir!), report).toEqual(['sampler.lock.1']);
    expect(starts[0]!.root_pid, report).toBe(run.pid);
    expect(stop.pid, report).toBe(starts[0]!.pid);
    expect(['stop-file', 'agent-exit'], report).toContain(stop.reason);
    expect(stop.t, report).toBeGreaterThanOrEqual(Math.floor(sessionEnd!.ts));
    await waitFor('sampler exit', () => (running(stop.pid) ? undefined : true));
    expect(samplerProcesses(dir!)).toEqual([]);

    const reduced = await runCordon(['reduce', '--session', sessionEnd!.session_id, '--json'], { env: sandbox!.env });
    expect(reduced.exitCode, reduced.stderr).toBe(0);
    const summary = JSON.parse(reduced.stdout).sessions[0];
    expect(summary).toMatchObject({ n_toolcalls: 3, unpaired_starts: 0, orphan_ends: 0, ended: true, sampler_starts: 1 });
    const jsonl = await runCordon(['reduce', '--session', sessionEnd!.session_id, '--jsonl'], { env: sandbox!.env });
    const calls = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l) as { command: string; peak_memory_mb: number | null; n_samples: number });
    expect(calls.map((c) => c.command)).toEqual(['echo cheap-before', BIG, 'ls -la']);
    const baseline = summary.baseline_memory_mb as number;
    const [cheap1, big, cheap2] = calls;
    expect(big!.n_samples).toBeGreaterThanOrEqual(4);
    expect(big!.peak_memory_mb! - baseline).toBeGreaterThanOrEqual(250);
    for (const cheap of [cheap1!, cheap2!]) expect((cheap.peak_memory_mb ?? baseline) - baseline).toBeLessThan(250);
  }, 240_000);

  it('SIGKILL of Claude mid-call (no session end) stops the sampler within two intervals', async () => {
    // (Claude Code refuses a foreground `sleep 60`; a node timer is an ordinary long call.)
    const session = await claudeWithHooks([step.shell(`${NODE} -e "setTimeout(() => {}, 60000) /* ${ORPHAN_TAG} */"`), step.text('unreachable')], { CORDON_INTERVAL: '250', CORDON_LOG_LEVEL: 'debug' });
    const running_ = session.run(undefined, { timeoutMs: 120_000 });
    const dir = await waitOrReport('session dir', () => sessionDirs(sandbox!.dataDir)[0], 60_000);
    const start = await waitOrReport('tool start', () => readMarkers(join(dir, 'markers.jsonl')).markers.find((m) => m.event === 'tool_start'), 60_000);
    await waitOrReport('sampler start', () => samplerEvents(dir).find((e) => e.event === 'start'));
    // Claude spawns the call only after PreToolUse returns; kill it while the call runs.
    await waitOrReport('the long call running', () => (pidsWithArg(ORPHAN_TAG).length > 0 ? true : undefined), 60_000);
    // The sampler has sampled the running call (two samples since it started).
    const samples = (): Array<{ t: number }> => (existsSync(join(dir, 'samples.jsonl')) ? readFileSync(join(dir, 'samples.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
    const callSeenAt = Date.now();
    await waitOrReport('two samples of the running call', () => (samples().filter((x) => x.t > callSeenAt).length >= 2 ? true : undefined));
    // The premise, read just before the kill: the call still runs, the model has seen no result, the sampler no stop.
    const before = { callPids: pidsWithArg(ORPHAN_TAG), turns: server!.turns().length, samplerEvents: samplerEvents(dir).map((e) => e.event) };
    const killedAt = Date.now();
    let killError: string | undefined; // ESRCH: Claude had already exited (the premise failed)
    try {
      process.kill(start.agent_pid!, 'SIGKILL');
    } catch (error) {
      killError = String(error);
    }
    const stop = await waitOrReport('sampler stop', () => samplerEvents(dir).find((e) => e.event === 'stop'));
    const run = await running_;
    const report = sessionReport(sandbox!.dataDir, {
      killed: start.agent_pid,
      killedAt,
      killError,
      before,
      toolResults: server!.toolResults(),
      run: { pid: run.pid, exitCode: run.exitCode, signal: run.signal, stdout: run.stdout.slice(-500), stderr: run.stderr.slice(-500) },
    });
    expect(killError, report).toBeUndefined();
    expect(before.callPids.length, report).toBeGreaterThan(0);
    expect(before.turns, report).toBe(1);
    expect(before.samplerEvents, report).toEqual(['start']);
    expect(run.signal, report).toBe('SIGKILL');
    expect(readMarkers(join(dir, 'markers.jsonl')).markers.filter((m) => m.event === 'tool_end' || m.event === 'session_end'), report).toEqual([]);
    expect(stop.reason, report).toBe('agent-exit');
    // Two intervals counted in ticks: at most two samples after the kill (a loaded machine stretches the intervals).
    expect(samples().filter((x) => x.t > killedAt).length, report).toBeLessThanOrEqual(2);
  }, 240_000);
});
