import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeGemini, FakeOpenAIResponses, holdPerTest, step, type FakeModelServer, type ScriptOptions } from '../../support/fake-models/index.js';
import { json, killSpawned, makeRepoSandbox, makeScene, promptsSeen, readAttempt, readState, type Scene } from './support.js';

// `cordon run` with the real Codex 0.171.0 (`codex exec`) and the real Gemini CLI 0.61.0
// (`gemini -p`) against their fake model servers: one accepted and one rejected attempt each,
// and a resume, with the agent's own report recorded.

const held = holdPerTest(killSpawned);

interface Case {
  readonly agent: 'codex' | 'gemini';
  readonly start: (o: ScriptOptions) => Promise<FakeModelServer>;
  readonly args: readonly string[];
  /** Turns the agent counts for a one-write script. */
  readonly turns: number;
}

const CASES: readonly Case[] = [
  { agent: 'codex', start: (o) => FakeOpenAIResponses.start(o), args: ['exec', '--json', '--ephemeral', '--sandbox', 'workspace-write', '-'], turns: 1 },
  { agent: 'gemini', start: (o) => FakeGemini.start(o), args: ['-p', '', '--output-format', 'json', '--approval-mode', 'auto_edit'], turns: 2 },
];

async function scene(c: Case, steps: ScriptOptions['steps']): Promise<Scene & { server: FakeModelServer }> {
  const made = makeRepoSandbox(`cordon-run-${c.agent}-`);
  held.sandbox(made.sandbox);
  const server = held.server(await c.start({ workdir: made.repo, steps }));
  return Object.assign(makeScene(c.agent, made.sandbox, made.repo, server), { server });
}

const expectApp = (word: string) => `node -e "if (!require('fs').readFileSync('src/app.py', 'utf8').includes('${word}')) { console.error('expected ${word}'); process.exit(1); }"`;

describe.each(CASES)('cordon run --agent $agent (the real agent)', (c) => {
  it('an edit inside the policy that the verifier accepts: exit 0, the agent’s report recorded, the prompt on stdin', async () => {
    const s = await scene(c, [step.write(join('src', 'app.py'), 'print("bye")\n'), step.text('All done.')]);
    const result = await s.cordon(['run', 'Make the app say bye', '--agent', c.agent, '--allow', 'src/**', '--verify', expectApp('bye'), '--json']);
    expect(result.exitCode, result.stderr + result.stdout).toBe(0);
    const report = json(result);
    expect(report).toMatchObject({ phase: 'accepted', attempt: 1, exit_code: 0, audit: { passed: true, changed_files: ['src/app.py'] } });
    expect(report.run).toMatchObject({ agent: c.agent, status: 'finished', exit_code: 0, prompt_delivery: 'stdin', args: c.args, turns: c.turns, message: 'All done.', error: null, cost_usd: null });
    expect(report.run.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(readState(s.repo).last_run.session_id).toBe(report.run.session_id);
    const [prompt] = promptsSeen(s.server);
    expect(prompt).toContain(readAttempt(s.repo, 1).prompt.trim());
    expect(prompt).toContain('Task:\nMake the app say bye');
    expect(readFileSync(join(s.repo, 'src/app.py'), 'utf8')).toBe('print("bye")\n');
  });

  it('an edit outside the policy is rejected (exit 3); resume after a manual fix runs a fresh attempt with recovery context', async () => {
    const s = await scene(c, [step.write('README.md', '# taken over\n'), step.write(join('src', 'app.py'), 'print("bye")\n'), step.text('Done.')]);
    const result = await s.cordon(['run', 'Make the app say bye', '--agent', c.agent, '--allow', 'src/**', '--json']);
    expect(result.exitCode, result.stderr + result.stdout).toBe(3);
    const report = json(result);
    expect(report.phase).toBe('rejected');
    expect(report.run.status).toBe('finished');
    expect(report.audit.violations.map((v: { message: string }) => v.message)).toEqual([expect.stringMatching(/^path outside policy: README\.md\b/)]);
    expect(readState(s.repo).last_error).toMatch(/^path outside policy: README\.md\b/);

    // The preflight refuses while README.md is still changed; put it back and resume.
    const refused = await s.cordon(['resume', '--json']);
    expect(refused.exitCode).toBe(2);
    expect(json(refused).error.message).toMatch(/^current partial changes violate the cordon envelope/);
    writeFileSync(join(s.repo, 'README.md'), '# demo\n');
    const server2 = held.server(await c.start({ workdir: s.repo, steps: [step.text('Nothing more to do.')] }));
    s.useServer(server2);
    const resumed = await s.cordon(['resume', '--json']);
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    expect(json(resumed)).toMatchObject({ phase: 'accepted', attempt: 2, run: { attempt: 2, agent: c.agent } });
    const [prompt] = promptsSeen(server2);
    expect(prompt).toContain('Attempt: 2 of 3');
    expect(prompt).toContain('Previous attempt ended with: path outside policy: README.md');
    expect(prompt).toContain('Paths changed so far (1):\n- src/app.py');
  });
});
