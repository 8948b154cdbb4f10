import { chmodSync, existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireAgent } from '../../support/agents.js';
import { FakeAnthropic, holdPerTest, step, type AnthropicScriptOptions } from '../../support/fake-models/index.js';
import { git } from '../../support/git.js';
import {
  allowClaudeBash,
  exited,
  isAlive,
  json,
  killSpawned,
  lockHeld,
  makeRepoSandbox,
  makeScene,
  processesWith,
  promptsSeen,
  readAttempt,
  readState,
  waitUntil,
  type Scene,
} from './support.js';

// `cordon run` / `cordon resume` driving the real Claude Code 2.1.332 (scripts/agents.json)
// against the fake Anthropic server: the reference's scenarios S2–S4 and R1–R8 of
// the BEKO2210/SkillQuarry cordon, and the faults docs/envelopes.md lists, fixed. Every edit below is made by Claude
// Code's own Write/Edit/Bash tools in a real repository.

const held = holdPerTest(killSpawned);

async function scene(steps: AnthropicScriptOptions['steps'], extra: Omit<AnthropicScriptOptions, 'steps' | 'workdir'> = {}): Promise<Scene & { server: FakeAnthropic }> {
  const made = makeRepoSandbox('cordon-run-claude-');
  held.sandbox(made.sandbox);
  const server = held.server(await FakeAnthropic.start({ workdir: made.repo, steps, ...extra }));
  return Object.assign(makeScene('claude-code', made.sandbox, made.repo, server), { server });
}

async function nextServer(s: Scene, steps: AnthropicScriptOptions['steps'], extra: Omit<AnthropicScriptOptions, 'steps' | 'workdir'> = {}): Promise<FakeAnthropic> {
  const server = held.server(await FakeAnthropic.start({ workdir: s.repo, steps, ...extra }));
  s.useServer(server);
  return server;
}

/** A verifier (no shell: argv split like a shell would) that passes when src/app.py holds `word`. */
const expectApp = (word: string) => `node -e "const t = require('fs').readFileSync('src/app.py', 'utf8'); if (!t.includes('${word}')) { console.error('expected ${word} in src/app.py, found: ' + t.trim()); process.exit(1); }"`;
const API_403 = { status: 403, type: 'permission_error', message: 'fake key has no access' } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('cordon run with the real Claude Code: reference scenarios (the BEKO2210/SkillQuarry cordon)', () => {
  it('S2: a multi-step change that a verifier accepts: exit 0; the agent’s own report is recorded', async () => {
    const s = await scene([step.edit('src/app.py', 'hello', 'bye'), step.write('src/new.py', 'VALUE = 1\n'), step.text('Done: the app says bye.')]);
    const result = await s.cordon(['run', 'Make the app say bye and add src/new.py', '--allow', 'src/**', '--verify', expectApp('bye'), '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const report = json(result);
    expect(report).toMatchObject({ phase: 'accepted', attempt: 1, max_attempts: 3, exit_code: 0 });
    expect(report.audit).toMatchObject({ passed: true, changed_files: ['src/app.py', 'src/new.py'], violations: [] });
    expect(report.audit.verification).toHaveLength(1);
    // The agent's own result: session, turns, cost, duration.
    const run = report.run;
    expect(run).toMatchObject({ attempt: 1, agent: 'claude-code', status: 'finished', exit_code: 0, agent_status: 'success', turns: 3, message: 'Done: the app says bye.', prompt_delivery: 'stdin', error: null });
    expect(run.session_id).toMatch(UUID);
    expect(run.cost_usd).toBeGreaterThan(0);
    expect(run.duration_ms).toBeGreaterThan(0);
    expect(run.args).toEqual(['-p', '--output-format', 'json', '--no-session-persistence', '--max-turns', '30', '--permission-mode', 'acceptEdits']);
    expect(readState(s.repo)).toMatchObject({ phase: 'accepted', attempt: 1, last_error: null, last_run: { session_id: run.session_id, turns: 3, cost_usd: run.cost_usd } });
    // What the model was told (the BEKO2210/SkillQuarry cordon): task, globs, budgets, commit rule, independent audit, attempt.
    const [prompt] = promptsSeen(s.server);
    expect(prompt).toBeDefined();
    expect(prompt).toBe(readAttempt(s.repo, 1).prompt);
    expect(prompt).toContain('Task:\nMake the app say bye and add src/new.py\n');
    expect(prompt).toContain('- Change only paths matching: src/**');
    expect(prompt).toContain('changed files <= 25; added lines <= 2000; deleted lines <= 1000; working bytes <= 2097152');
    expect(prompt).toContain('- Do not commit.');
    expect(prompt).toContain('cordon inspects the working tree itself and runs these verifiers');
    expect(prompt).toContain('Attempt: 1 of 3');
    expect(prompt).not.toContain('Recovery context');
  });

  it('S3: the agent crashes after a partial edit (API error), resume finishes: exit 4, then exit 0 with recovery context', async () => {
    const s = await scene([step.write('src/app.py', 'print("PARTIAL")\n')], { apiError: { step: 1, ...API_403 } });
    const first = await s.cordon(['run', 'Make the app print FINAL', '--allow', 'src/**', '--verify', expectApp('FINAL'), '--json']);
    expect(first.exitCode, first.stderr).toBe(4);
    const r1 = json(first);
    expect(r1.phase).toBe('engine_error');
    expect(r1.run).toMatchObject({ status: 'engine_error', exit_code: 1, agent_status: 'api_error' });
    expect(r1.run.error).toMatch(/^Claude Code exited 1: api_error: Failed to authenticate\. API Error: 403 fake key has no access/);
    // The audit still ran, verifiers included (the BEKO2210/SkillQuarry cordon step 6).
    expect(r1.audit.passed).toBe(false);
    expect(r1.audit.verification[0].stderr).toContain('expected FINAL in src/app.py, found: print("PARTIAL")');

    const server2 = await nextServer(s, [step.write('src/app.py', 'print("FINAL")\n'), step.text('Fixed.')]);
    const second = await s.cordon(['resume', '--json']);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(json(second)).toMatchObject({ phase: 'accepted', attempt: 2, run: { attempt: 2, status: 'finished' }, audit: { passed: true } });
    const [prompt] = promptsSeen(server2);
    expect(prompt).toContain('Attempt: 2 of 3');
    expect(prompt).toContain('Recovery context: attempt 1 did not end accepted');
    expect(prompt).toContain('Previous attempt ended with: Claude Code exited 1: api_error: Failed to authenticate. API Error: 403');
    expect(prompt).toContain('Paths changed so far (1):\n- src/app.py');
    expect(prompt).toContain('expected FINAL in src/app.py, found: print("PARTIAL")');
  });

  it('S4: the agent claims success, a verifier vetoes (exit 3); resume with the failure in the prompt (exit 0)', async () => {
    const s = await scene([step.write('src/app.py', 'print("WRONG")\n'), step.text('SUCCESS: all done.')]);
    const first = await s.cordon(['run', 'Make the app print RIGHT', '--allow', 'src/**', '--verify', expectApp('RIGHT')]);
    expect(first.exitCode, first.stderr).toBe(3);
    // Human output: the attempt line, what Claude reported, then the audit.
    const out = first.stdout;
    expect(out).toMatch(/^attempt 1 of 3 \(claude-code\): rejected, exit 3\n/);
    expect(out).toMatch(/ {2}agent: exit 0, success, session [0-9a-f-]{36}, 2 turns, \$\d+\.\d{4}, \d+\.\d s, wall \d+\.\d s\n/);
    expect(out).toContain('violation: verifier failed (exit 1):');
    const state = readState(s.repo);
    expect(state.phase).toBe('rejected');
    expect(state.last_error).toMatch(/^verifier failed \(exit 1\)/);

    const server2 = await nextServer(s, [step.write('src/app.py', 'print("RIGHT")\n'), step.text('Fixed for real.')]);
    const second = await s.cordon(['resume']);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^attempt 2 of 3 \(claude-code\): accepted, exit 0\n/);
    const [prompt] = promptsSeen(server2);
    expect(prompt).toContain('Failed verifiers:\n- `node -e');
    expect(prompt).toContain('(exit 1):\n    expected RIGHT in src/app.py, found: print("WRONG")');
  });
});

describe('cordon run with the real Claude Code: outcomes and exit codes', () => {
  it('edits outside the policy are rejected with exit 3, verifiers skipped', async () => {
    const s = await scene([step.edit('README.md', 'demo', 'hijacked'), step.write('src/app.py', 'print("ok")\n'), step.text('Done.')]);
    const result = await s.cordon(['run', 'Change the app', '--allow', 'src/**', '--verify', expectApp('ok'), '--json']);
    expect(result.exitCode, result.stderr).toBe(3);
    const report = json(result);
    expect(report.phase).toBe('rejected');
    expect(report.audit.violations.map((v: { message: string }) => v.message)).toEqual([expect.stringMatching(/^path outside policy: README\.md\b/)]);
    expect(report.audit.verification_skipped).toBe(true);
    expect(readFileSync(join(s.repo, 'README.md'), 'utf8')).toBe('# hijacked\n');
  });

  it('an API error Claude reports with exit 0 is an engine error: exit 4 although the audit passes', async () => {
    const s = await scene([], { apiError: { step: 0, ...API_403 } });
    // Claude Code 2.1.332 exits 1 here; some versions exit 0 (anthropics/claude-code#79500). A
    // wrapper around the real binary that exits 0 reproduces those: the result object is Claude's own.
    const wrapper = join(s.sandbox.root, 'claude-exits-0');
    writeFileSync(wrapper, `#!/bin/sh\n"${requireAgent('claude-code').bin}" "$@"\nexit 0\n`);
    chmodSync(wrapper, 0o755);
    const result = await s.cordon(['run', 'Say hello', '--allow', 'src/**', '--agent-bin', wrapper, '--json']);
    expect(result.exitCode, result.stderr).toBe(4);
    const report = json(result);
    expect(report.audit.passed).toBe(true);
    expect(report.phase).toBe('engine_error');
    expect(report.run).toMatchObject({ exit_code: 0, status: 'engine_error', agent_status: 'api_error' });
    expect(report.run.error).toMatch(/^Claude Code reported an error \(exit 0\): api_error: Failed to authenticate\. API Error: 403 fake key has no access/);
    expect(report.run.session_id).toMatch(UUID);
    expect(readState(s.repo).last_error).toBe(report.run.error);
  });

  it('4 wins over 3: turns exhausted (error_max_turns) after an edit outside the policy', async () => {
    const s = await scene([step.edit('README.md', 'demo', 'oops'), step.write('src/a.py', 'a\n'), step.text('x')]);
    const result = await s.cordon(['run', 'Two edits', '--allow', 'src/**', '--max-turns', '1', '--json']);
    expect(result.exitCode, result.stderr).toBe(4);
    const report = json(result);
    expect(report.audit.passed).toBe(false);
    expect(report.phase).toBe('engine_error');
    expect(report.run).toMatchObject({ agent_status: 'error_max_turns', error: 'Claude Code exited 1: error_max_turns: Reached maximum number of turns (1)' });
    expect(report.run.args).toContain('1');
  });

  it('R8: a timeout is exit 4, and no process of the agent is left', async () => {
    const marker = `cordon-timeout-${process.pid}-${Date.now()}`;
    const s = await scene([step.shell(`node -e "setTimeout(() => {}, 60000)" ${marker}`), step.text('never')]);
    allowClaudeBash(s.session);
    // 20 s: the real agent has to start and run its Bash tool first, also on a loaded machine.
    const child = s.spawnCordon(['run', 'Wait forever', '--allow', 'src/**', '--timeout', '20', '--json']);
    const done = exited(child);
    // The agent's Bash tool really runs before the timeout ends it.
    expect(await waitUntil(() => processesWith(marker).length > 0, 20_000)).toBe(true);
    const result = await done;
    expect(result.exitCode, result.stderr).toBe(4);
    const report = json(result);
    expect(report.run).toMatchObject({ status: 'engine_error', timed_out: true, error: 'Claude Code timed out after 20 s' });
    expect(processesWith(marker)).toEqual([]);
    expect(isAlive(report.run.agent_pid)).toBe(false);
  });

  it('R8: output past --agent-output-cap is exit 4', async () => {
    const s = await scene([step.text('a reply')]);
    const result = await s.cordon(['run', 'Reply', '--allow', 'src/**', '--agent-output-cap', '64', '--json']);
    expect(result.exitCode, result.stderr).toBe(4);
    expect(json(result).run).toMatchObject({ output_limited: true, error: 'Claude Code exceeded the 64-byte output limit' });
  });

  it('a missing binary is found before anything is armed (exit 2, how to install); one that exists but cannot start is exit 4, never "accepted"', async () => {
    const s = await scene([]);
    const missing = join(s.sandbox.root, 'no-such-claude');
    const refused = await s.cordon(['run', 'Anything', '--allow', 'src/**', '--agent-bin', missing]);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`${missing}: no such file`);
    expect(refused.stderr).toContain('npm install -g @anthropic-ai/claude-code');
    expect(existsSync(join(s.repo, '.cordon'))).toBe(false);
    // A file that exists with execute permission but that the kernel cannot run (no #! line, not ELF).
    const broken = join(s.sandbox.root, 'broken-claude');
    writeFileSync(broken, '\u0000\u0001 not a program');
    chmodSync(broken, 0o755);
    const result = await s.cordon(['run', 'Anything', '--allow', 'src/**', '--agent-bin', broken]);
    expect(result.exitCode, result.stderr).toBe(4);
    expect(result.stdout).not.toMatch(/accepted/);
    expect(result.stdout).toContain('audit passed, but the attempt failed');
    expect(readState(s.repo)).toMatchObject({ phase: 'engine_error', attempt: 1 });
    expect(lockHeld(s.repo)).toBe(false);
  });
});

describe('cordon run with the real Claude Code: signals, the lock and stale runs', () => {
  it('SIGINT during an attempt: every agent process ends, phase interrupted, then the lock is free; the prompt never shows in ps', async () => {
    const marker = `cordon-sigint-${process.pid}-${Date.now()}`;
    const s = await scene([step.write('src/app.py', 'print("half")\n'), step.shell(`node -e "setTimeout(() => {}, 60000)" ${marker}`), step.text('never')]);
    allowClaudeBash(s.session);
    const task = `Secret task words ${marker.slice(-6)}`;
    const child = s.spawnCordon(['run', task, '--allow', 'src/**']);
    const done = exited(child);
    expect(await waitUntil(() => processesWith(marker).length > 0, 30_000)).toBe(true);
    const { last_run: running } = readState(s.repo);
    expect(running).toMatchObject({ status: 'running', owner_pid: child.pid, prompt_delivery: 'stdin' });
    // The prompt went on stdin: not in the agent's command line.
    expect(readFileSync(`/proc/${running.agent_pid}/cmdline`, 'utf8')).not.toContain('Secret task words');
    child.kill('SIGINT');
    const result = await done;
    expect(result.exitCode, result.stderr).toBe(130);
    expect(processesWith(marker)).toEqual([]);
    expect(isAlive(running.agent_pid)).toBe(false);
    expect(lockHeld(s.repo)).toBe(false);
    const state = readState(s.repo);
    expect(state).toMatchObject({ phase: 'interrupted', attempt: 1, last_error: 'interrupted by SIGINT', last_run: { status: 'interrupted', interrupted_by: 'SIGINT' } });
    expect(result.stdout).toContain('audit: not run (the attempt was interrupted)');
    // Nothing changes the tree once cordon has returned: a window of 1 s in which it must NOT
    // change (the killed agent's last write would have landed by then; under load it only lasts longer).
    const before = readFileSync(join(s.repo, 'src/app.py'), 'utf8');
    await new Promise((r) => setTimeout(r, 1000));
    expect(readFileSync(join(s.repo, 'src/app.py'), 'utf8')).toBe(before);
    const status = await s.cordon(['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(json(status)).toMatchObject({ phase: 'interrupted', stale_run: null });
  });

  it('R7: the lock is held for the whole run; check is refused, status works and shows running; the run then passes', async () => {
    const marker = `cordon-lock-${process.pid}-${Date.now()}`;
    // The agent's tool waits for this file, which the test writes once it has looked (at most 2 min,
    // so that a loaded machine's slow check and status still find the run holding the lock).
    const release = join(tmpdir(), `${marker}.release`);
    const s = await scene([step.write('src/app.py', 'print("done")\n'), step.shell(`node -e "setInterval(() => require('fs').existsSync('${release}') && process.exit(0), 50); setTimeout(() => process.exit(0), 120000)" ${marker}`), step.text('Done.')]);
    allowClaudeBash(s.session);
    const child = s.spawnCordon(['run', 'Slow change', '--allow', 'src/**']);
    const done = exited(child);
    expect(await waitUntil(() => processesWith(marker).length > 0, 30_000)).toBe(true);
    const check = await s.cordon(['check', '--json']);
    expect(check.exitCode).toBe(2);
    const refusal = json(check).error;
    expect(refusal.code).toBe('CORDON_LOCK_HELD');
    expect(refusal.message).toContain('another cordon process owns this repository (run, pid');
    expect(refusal.message).toContain(`lock file ${join(s.repo, '.git/cordon.lock')}`);
    expect(existsSync(join(s.repo, '.cordon/cordon.lock'))).toBe(false);
    const status = await s.cordon(['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(json(status)).toMatchObject({ phase: 'running', attempt: 1, stale_run: null });
    writeFileSync(release, '');
    const result = await done;
    rmSync(release, { force: true });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readState(s.repo).phase).toBe('accepted');
  });

  it('a running phase whose cordon was killed is recognised: status names it, resume records it and continues', async () => {
    const marker = `cordon-stale-${process.pid}-${Date.now()}`;
    const s = await scene([step.write('src/app.py', 'print("half")\n'), step.shell(`node -e "setTimeout(() => {}, 60000)" ${marker}`), step.text('never')]);
    allowClaudeBash(s.session);
    const child = s.spawnCordon(['run', 'Finish the app', '--allow', 'src/**', '--verify', expectApp('FINAL')]);
    const done = exited(child);
    expect(await waitUntil(() => processesWith(marker).length > 0, 30_000)).toBe(true);
    const { last_run: running } = readState(s.repo);
    child.kill('SIGKILL'); // no cleanup possible: the agent is orphaned
    await done;
    process.kill(-running.agent_pid, 'SIGKILL');
    for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
    const status = await s.cordon(['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const reason = `attempt 1 was left running by cordon pid ${child.pid} (agent pid ${running.agent_pid}), which is gone`;
    expect(json(status)).toMatchObject({ phase: 'running', stale_run: reason });
    expect((await s.cordon(['status'])).stdout).toContain(`stale: ${reason}`);

    const server2 = await nextServer(s, [step.write('src/app.py', 'print("FINAL")\n'), step.text('Done.')]);
    const resumed = await s.cordon(['resume', '--json']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(json(resumed)).toMatchObject({ phase: 'accepted', attempt: 2 });
    expect(promptsSeen(server2)[0]).toContain(`Previous attempt ended with: ${reason}`);
  });

  it('R4: an error during the attempt (the agent edits .git/info/exclude) ends it as interrupted, not running: exit 2', async () => {
    // Through node, since Claude Code refuses a shell redirect into .git itself (a "sensitive file").
    const s = await scene([step.shell(`node -e "require('fs').appendFileSync('.git/info/exclude', '/sneaky/\\n')"`), step.text('Done.')]);
    allowClaudeBash(s.session);
    const result = await s.cordon(['run', 'Tamper', '--allow', 'src/**', '--json']);
    expect(result.exitCode, result.stderr).toBe(2);
    const excludeChanged = `${realpathSync(s.repo)}/.git/info/exclude changed after cordon was armed; restore the content it had then (kept in .cordon/snapshot.json as git.info_exclude), or run \`cordon reset\` and arm again`;
    expect(json(result).error).toMatchObject({ code: 'CORDON_BAD_STATE', message: excludeChanged });
    expect(readFileSync(join(s.repo, '.git/info/exclude'), 'utf8')).toContain('/sneaky/');
    const state = readState(s.repo);
    expect(state.phase).toBe('interrupted');
    expect(state.last_error).toBe(`cordon stopped attempt 1: ${excludeChanged}`);
    expect(lockHeld(s.repo)).toBe(false);
  });
});

describe('cordon run / resume with the real Claude Code: refusals (R1, R3, R5, R6)', () => {
  it('R1: the attempt ceiling refuses with exit 2 and changes nothing', async () => {
    const s = await scene([step.write('src/app.py', 'print("WRONG")\n'), step.text('Done.')]);
    const first = await s.cordon(['run', 'Print RIGHT', '--allow', 'src/**', '--verify', expectApp('RIGHT'), '--max-attempts', '1']);
    expect(first.exitCode, first.stderr).toBe(3);
    const before = readFileSync(join(s.repo, '.cordon/state.json'), 'utf8');
    const requests = s.server.requestCount;
    const second = await s.cordon(['resume', '--json']);
    expect(second.exitCode).toBe(2);
    expect(json(second).error).toMatchObject({ code: 'CORDON_BAD_STATE', message: expect.stringMatching(/^attempt limit reached \(1\); /) });
    expect(readFileSync(join(s.repo, '.cordon/state.json'), 'utf8')).toBe(before);
    expect(s.server.requestCount).toBe(requests);
  });

  it('R1 with resumes: run + 2 resumes with --max-attempts 3, the fourth is refused', async () => {
    const s = await scene([step.write('src/app.py', 'print("WRONG")\n'), step.text('Done.')]);
    expect((await s.cordon(['run', 'Print RIGHT', '--allow', 'src/**', '--verify', expectApp('RIGHT')])).exitCode).toBe(3);
    expect((await s.cordon(['resume'])).exitCode).toBe(3);
    expect((await s.cordon(['resume'])).exitCode).toBe(3);
    const fourth = await s.cordon(['resume', '--json']);
    expect(fourth.exitCode).toBe(2);
    expect(json(fourth).error.message).toMatch(/^attempt limit reached \(3\); /);
    expect(readState(s.repo)).toMatchObject({ attempt: 3, phase: 'rejected' });
  });

  it('R3 and R5: resume refuses a manual envelope and an accepted one; run refuses when armed; reset with nothing armed is a no-op', async () => {
    const s = await scene([step.write('src/app.py', 'print("ok")\n'), step.text('Done.')]);
    expect((await s.cordon(['reset'])).exitCode).toBe(0);
    expect((await s.cordon(['arm', 'by hand', '--allow', 'src/**'])).exitCode).toBe(0);
    const manual = await s.cordon(['resume', '--json']);
    expect(manual.exitCode).toBe(2);
    expect(json(manual).error.message).toMatch(/^manual envelopes cannot be resumed/);
    const armed = await s.cordon(['run', 'again', '--allow', 'src/**', '--json']);
    expect(armed.exitCode).toBe(2);
    expect(json(armed).error.message).toMatch(/^cordon is already armed/);
    expect(s.server.requestCount).toBe(0);
    expect((await s.cordon(['reset'])).exitCode).toBe(0);
    expect((await s.cordon(['run', 'Change the app', '--allow', 'src/**'])).exitCode).toBe(0);
    const accepted = await s.cordon(['resume', '--json']);
    expect(accepted.exitCode).toBe(2);
    expect(json(accepted).error.message).toMatch(/^the cordon envelope is already accepted; there is nothing to resume/);
  });

  it('R6: resume refuses when the partial changes already break the policy, and records rejected', async () => {
    const s = await scene([step.write('src/app.py', 'print("half")\n')], { apiError: { step: 1, ...API_403 } });
    expect((await s.cordon(['run', 'Finish', '--allow', 'src/**'])).exitCode).toBe(4);
    writeFileSync(join(s.repo, 'README.md'), '# edited by hand\n');
    const server2 = await nextServer(s, [step.text('unused')]);
    const resumed = await s.cordon(['resume', '--json']);
    expect(resumed.exitCode).toBe(2);
    expect(json(resumed).error).toMatchObject({ code: 'CORDON_BAD_STATE', message: expect.stringMatching(/^current partial changes violate the cordon envelope; refusing to resume: path outside policy: README\.md\b/) });
    expect(server2.requestCount).toBe(0);
    const state = readState(s.repo);
    expect(state).toMatchObject({ phase: 'rejected', attempt: 1, last_error: expect.stringMatching(/^path outside policy: README\.md\b/) });
    const audit = JSON.parse(readFileSync(join(s.repo, '.cordon/audit.json'), 'utf8'));
    expect(audit).toMatchObject({ passed: false, verification: [] });
  });

  it('bad input is refused with exit 2 before anything is written', async () => {
    const s = await scene([]);
    const cases: Array<[string[], string]> = [
      [['run', 'x', '--allow', 'src/**', '--agent', 'nope'], 'no headless agent runner named "nope" is installed (installed: claude-code, codex, gemini)'],
      [['run', 'x', '--allow', 'src/**', '--agent', 'codex', '--max-turns', '3'], '--max-turns: Codex has no turn limit'],
      [['run', 'x', '--allow', 'src/**', '--effort', 'turbo'], '--effort must be one of low, medium, high, xhigh, max for Claude Code (got "turbo")'],
      [['run', 'x', '--allow', 'src/**', '--timeout', 'soon'], '--timeout: expected a number of seconds greater than 0 and at most 604800 but received: "soon"'],
      [['run', 'x', '--allow', 'src/**', '--max-budget-usd', 'inf'], '--max-budget-usd: expected a number of US dollars greater than 0 but received: "inf"'],
      [['run', '   ', '--allow', 'src/**'], 'label must not be empty'],
      [['run', 'x'], 'at least one --allow'],
    ];
    for (const [args, message] of cases) {
      const result = await s.cordon([...args, '--json']);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(json(result).error.message, args.join(' ')).toContain(message);
      expect(existsSync(join(s.repo, '.cordon')), args.join(' ')).toBe(false);
    }
    expect(git(s.repo, ['status', '--porcelain'])).toBe('');
    expect(s.server.requestCount).toBe(0);
  });
});
