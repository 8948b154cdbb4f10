import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRunner } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { resumeEnvelope } from '../../../src/envelope/attempt/resume.js';
import { processRuns } from '../../../src/io/private-temp.js';
import { runEnvelope } from '../../../src/envelope/attempt/run.js';
import { repo } from '../support.js';
import { waitFor } from '../../../../../test/support/wait.js';

// The library under `cordon run`/`resume` with a scripted stand-in agent (a Node script the
// runner launches). The real agents are driven in test/e2e/runner; here the paths only a
// library test reaches: a signal during the verifiers, an error thrown mid-attempt, the lock.

/** A runner whose "agent" runs `body` as a Node script with the prompt on stdin. */
function scriptRunner(body: string): AgentRunner {
  return {
    title: 'Script agent',
    binary: process.execPath,
    supports: { maxTurns: false, maxBudgetUsd: false, model: false, effort: [] },
    prompt: (_brief, standard) => standard,
    launch: (request) => ({ args: ['-e', body], stdin: request.prompt }),
    parse: (output) => ({ ok: output.exitCode === 0, status: 'scripted', sessionId: 'script-1', turns: 1 }),
  };
}

const lockFile = (dir: string) => join(dir, '.git/cordon.lock');

describe('runEnvelope / resumeEnvelope (library)', () => {
  it('the agent gets the prompt on stdin; the attempt file keeps it; the lock is gone afterwards', async () => {
    const dir = repo();
    const body = "let s=''; process.stdin.on('data', d => s += d).on('end', () => require('fs').writeFileSync('src/prompt.txt', s));";
    const result = await runEnvelope({ task: 'copy the prompt', agent: 'script', runner: scriptRunner(body), settings: { allow: ['src/**'] } }, { repo: dir });
    expect(result.exitCode).toBe(0);
    const kept = JSON.parse(readFileSync(join(dir, '.cordon/attempt-1.json'), 'utf8'));
    expect(readFileSync(join(dir, 'src/prompt.txt'), 'utf8')).toBe(kept.prompt);
    expect(kept.run).toMatchObject({ status: 'finished', session_id: 'script-1', agent_status: 'scripted', prompt_delivery: 'stdin' });
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it('run tells its warn callback of a glob naming a directory before the agent starts, and runs all the same', async () => {
    const dir = repo();
    const events: string[] = [];
    const body = "require('fs').writeFileSync('src/app.py', 'x\\n')";
    const runner = scriptRunner(body);
    const launch = runner.launch;
    const result = await runEnvelope(
      { task: 'edit', agent: 'script', runner: { ...runner, launch: (request) => (events.push('agent'), launch(request)) }, settings: { allow: ['src'] } },
      { repo: dir, warn: (line) => events.push(line) },
    );
    expect(events).toEqual(['warning: allow glob src names a directory, but a glob without * or ? matches that one path only, not the files under it; for everything under it use src/** (--allow or "allow" in .cordon.json)', 'agent']);
    // The policy was kept as given: src/app.py is outside it.
    expect(result.exitCode).toBe(3);
  });

  it('a signal while a verifier runs: the verifier is killed, phase interrupted, no audit, 128 + n', async () => {
    const dir = repo();
    const marker = join(dir, 'verifier-started');
    const verifier = `node -e "require('fs').writeFileSync('${marker}', String(process.pid)); setTimeout(() => {}, 60000)"`;
    const running = runEnvelope({ task: 'edit', agent: 'script', runner: scriptRunner("require('fs').writeFileSync('src/app.py', 'x\\n')"), settings: { allow: ['src/**'], verify: [verifier, verifier] } }, { repo: dir });
    await waitFor(() => existsSync(marker), { what: 'the verifier to start', timeoutMs: 60_000 });
    const verifierPid = Number(readFileSync(marker, 'utf8'));
    process.kill(process.pid, 'SIGTERM');
    const result = await running;
    expect(result.exitCode).toBe(143);
    expect(result.audit).toBeNull();
    expect(result.state).toMatchObject({ phase: 'interrupted', last_error: 'interrupted by SIGTERM during the audit' });
    // Gone, or a zombie nobody reaps (an orphan under an init that does not reap): not running.
    expect(processRuns(verifierPid, null)).toBe(false);
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it('an error thrown during the attempt ends it as interrupted (never running), then propagates', async () => {
    const dir = repo();
    const hooks = { audit: { promise: async () => Promise.reject(new Error('audit tap exploded')) } };
    await expect(runEnvelope({ task: 'edit', agent: 'script', runner: scriptRunner("require('fs').writeFileSync('src/app.py', 'y\\n')"), settings: { allow: ['src/**'] } }, { repo: dir, hooks })).rejects.toThrow('audit tap exploded');
    const state = JSON.parse(readFileSync(join(dir, '.cordon/state.json'), 'utf8'));
    expect(state).toMatchObject({ phase: 'interrupted', attempt: 1, last_error: 'cordon stopped attempt 1: audit tap exploded', last_run: { status: 'interrupted' } });
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it('resume: the runner named by the envelope is loaded, the recovery context reaches the agent', async () => {
    const dir = repo();
    const first = await runEnvelope({ task: 'fail first', agent: 'script', runner: scriptRunner('process.exit(7)'), settings: { allow: ['src/**'] } }, { repo: dir });
    expect(first.exitCode).toBe(4);
    expect(first.run.error).toBe('Script agent exited 7: (no output on stderr)');
    const loaded: string[] = [];
    const body = "let s=''; process.stdin.on('data', d => s += d).on('end', () => require('fs').writeFileSync('src/second.txt', s));";
    const second = await resumeEnvelope({ repo: dir, loadRunner: async (name) => (loaded.push(name), scriptRunner(body)) });
    expect(loaded).toEqual(['script']);
    expect(second.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'src/second.txt'), 'utf8')).toContain('Previous attempt ended with: Script agent exited 7: (no output on stderr)');
  });

  it('a state.json the agent corrupted is refused (exit 2) and replaced by cordon’s own, phase interrupted', async () => {
    const dir = repo();
    // The agent vandalises the state once cordon has recorded it as running (cordon writes the state
    // when the agent has spawned; on a loaded machine the agent may start before that write).
    const vandal = `const fs = require('fs'); const end = Date.now() + 60000; const t = setInterval(() => {
      let state; try { state = JSON.parse(fs.readFileSync('.cordon/state.json', 'utf8')); } catch { state = undefined; }
      if ((state && state.last_run && state.last_run.agent_pid === process.pid) || Date.now() > end) { clearInterval(t); fs.writeFileSync('.cordon/state.json', 'garbage'); }
    }, 20);`;
    const running = runEnvelope({ task: 'vandalise', agent: 'script', runner: scriptRunner(vandal), settings: { allow: ['src/**'] } }, { repo: dir });
    await expect(running).rejects.toMatchObject({ code: 'CORDON_BAD_STATE', exit: 2, message: expect.stringMatching(/^state is not valid JSON/) });
    const state = JSON.parse(readFileSync(join(dir, '.cordon/state.json'), 'utf8'));
    expect(state).toMatchObject({ phase: 'interrupted', attempt: 1, last_error: expect.stringMatching(/^cordon stopped attempt 1: state is not valid JSON/) });
  });
});
