import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { makeRepo } from '../../../../../test/support/git.js';
import { processStart } from '../../../src/envelope/lock.js';
import { orphanedAgent } from '../../../src/envelope/attempt/stale.js';
import type { EnvelopeState } from '../../../src/envelope/state/schema.js';

/**
 * Issue 13 item 16: after `cordon run` is SIGKILLed while its agent lives, `status` checks the
 * agent's liveness (pid plus start time, and its process group) and says it is alive; `check`
 * and `resume` refuse while it is.
 */

let sandbox: Sandbox;
const spawned: number[] = [];
beforeEach(() => {
  sandbox = makeSandbox('cordon-live-agent-');
  linkPlugins(sandbox.dataDir, ['claude-code']);
});
afterEach(() => {
  for (const pid of spawned.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
  sandbox.cleanup();
});

const cordon = (args: string[], cwd: string) => runCordon(args, { cwd, env: sandbox.env });

/** Polls `probe` (no timing assertion: a bound only so a regression fails instead of hanging). */
async function until<T>(probe: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

function readState(repo: string): Record<string, any> | undefined {
  try {
    return JSON.parse(readFileSync(join(repo, '.cordon/state.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** `cordon run` with an "agent" that starts a background job in its group and waits; cordon is then SIGKILLed. */
async function killedRun(): Promise<{ repo: string; agentPid: number }> {
  const repo = makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), { 'src/a.txt': 'a\n' }, sandbox.env);
  const agent = join(sandbox.dir('bin'), 'fake-claude');
  writeFileSync(agent, '#!/bin/sh\nsleep 300 &\nwait\n');
  chmodSync(agent, 0o755);
  const child = spawn(process.execPath, [CORDON_BIN, 'run', 'task', '--allow', 'src/**', '--agent-bin', agent], { cwd: repo, env: sandbox.env, stdio: 'ignore' });
  const agentPid = await until(() => readState(repo)?.last_run?.agent_pid ?? undefined, 'the agent was spawned');
  spawned.push(agentPid);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  return { repo, agentPid };
}

describe('a killed cordon run whose agent lives', () => {
  it('status says the agent is alive; check and resume refuse (exit 2); once it is stopped both work', async () => {
    const { repo, agentPid } = await killedRun();
    const human = await cordon(['status'], repo);
    expect(human.exitCode).toBe(0);
    expect(human.stdout.split('\n')[0]).toMatch(/^phase: running \(attempt 1 of \d+, mode \S+\)$/);
    expect(human.stdout).toContain(`agent still running: attempt 1 was left running by cordon pid`);
    expect(human.stdout).toContain(`its agent (pid ${agentPid}) is still running`);
    expect(human.stdout).not.toMatch(/which is gone$/m);
    expect(JSON.parse((await cordon(['status', '--json'], repo)).stdout)).toMatchObject({ phase: 'running', live_agent_pid: agentPid });
    for (const args of [['check'], ['check', '--json'], ['resume']]) {
      const r = await cordon(args, repo);
      expect({ args, code: r.exitCode }).toEqual({ args, code: 2 });
      expect((r.stdout + r.stderr).replace(/\s+/g, ' ')).toContain(`(pid ${agentPid}) is still running`);
    }
    // The leader dies, its background job lives on in its process group: still running.
    process.kill(agentPid, 'SIGKILL');
    await until(() => (processStart(agentPid) === null ? true : undefined), 'the leader is gone');
    expect(JSON.parse((await cordon(['status', '--json'], repo)).stdout).live_agent_pid).toBe(agentPid);
    expect((await cordon(['check'], repo)).exitCode).toBe(2);
    // The whole group is stopped: status calls the run stale, check audits.
    process.kill(-agentPid, 'SIGKILL');
    await until(() => {
      try {
        process.kill(-agentPid, 0);
        return undefined;
      } catch {
        return true;
      }
    }, 'the group is gone');
    const after = JSON.parse((await cordon(['status', '--json'], repo)).stdout);
    expect(after).toMatchObject({ phase: 'running', live_agent_pid: null });
    expect(after.stale_run).toMatch(/which is gone$/);
    expect((await cordon(['check'], repo)).exitCode).toBe(0);
  }, 300_000);

  it('a recycled pid (another start time) or a live owner is not a live orphaned agent', () => {
    const base = { schema_version: 1, phase: 'running', attempt: 1, max_attempts: 3, config_sha256: '', snapshot_sha256: '', exclude_sha256: '', last_error: null, last_audit: null, updated_at: '' };
    const run = (fields: Record<string, unknown>) => ({ ...base, last_run: { attempt: 1, agent: 'x', status: 'running', owner_start: null, ...fields } }) as unknown as EnvelopeState;
    const me = process.pid;
    const dead = 2 ** 22 + 17; // above pid_max's default: never a running pid
    expect(orphanedAgent(run({ owner_pid: dead, agent_pid: me, agent_start: processStart(me) }))).toBe(me);
    expect(orphanedAgent(run({ owner_pid: dead, agent_pid: me, agent_start: 'another-boot:1' }))).toBeUndefined();
    expect(orphanedAgent(run({ owner_pid: me, owner_start: processStart(me), agent_pid: me, agent_start: processStart(me) }))).toBeUndefined();
    expect(orphanedAgent(run({ owner_pid: dead, agent_pid: null }))).toBeUndefined();
    expect(orphanedAgent({ ...run({ owner_pid: dead, agent_pid: me }), phase: 'rejected' })).toBeUndefined();
  });
});
