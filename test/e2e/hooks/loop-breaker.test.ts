import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMarkers, type Marker } from '../../../packages/host/src/telemetry/markers.js';
import { REPO_ROOT, linkPluginRoots, makeSandbox, runCordon } from '../../support/cli.js';
import { FakeAnthropic, FakeGemini, FakeOpenAIResponses, claudeSession, codexSession, geminiSession, holdPerTest, step, type AgentSession, type FakeModelServer, type SessionOptions, type Step } from '../../support/fake-models/index.js';

// Issue 31 §2: the real Claude Code, Codex and Gemini CLI, hooks installed by `cordon
// install-hooks --write`, play a model that retries one failing command (with an edit in between
// and the quoting changed once). The model's next request after the third failure carries the
// loop breaker's feedback, in whatever shape the agent gives hook context; no request before it
// does; with CORDON_LOOP_BREAKER=off none does.

/** A phrase of the feedback (packages/host/src/loop-breaker/feedback.ts). */
const FEEDBACK = 'Repeating it unchanged is unlikely to help';

interface AgentCase {
  readonly name: 'claude-code' | 'codex' | 'gemini';
  readonly start: (o: { steps: readonly Step[]; workdir: string }) => Promise<FakeModelServer>;
  readonly session: (o: SessionOptions) => AgentSession;
  /** How many tool results a request body carries, in this agent's API. */
  readonly results: (body: unknown) => number;
  /** How the feedback reaches the model (in the request body's JSON), as observed with the pinned agent. */
  readonly shape: RegExp;
}

const count = (pattern: RegExp) => (body: unknown) => (JSON.stringify(body).match(pattern) ?? []).length;

const CASES: readonly AgentCase[] = [
  { name: 'claude-code', start: (o) => FakeAnthropic.start(o), session: claudeSession, results: count(/"type":"tool_result"/g), shape: /"role":"system","content":\[\{"type":"text","text":"PostToolUseFailure:Bash hook additional context: \[cordon\] This exact command has now failed 3 times/ },
  { name: 'codex', start: (o) => FakeOpenAIResponses.start(o), session: codexSession, results: count(/"type":"(function_call_output|custom_tool_call_output)"/g), shape: /"role":"developer","content":\[\{"type":"input_text","text":"\[cordon\] This exact command has now failed 3 times/ },
  { name: 'gemini', start: (o) => FakeGemini.start(o), session: geminiSession, results: count(/"functionResponse":/g), shape: /Exit Code: 1[^"]*<hook_context>\[cordon\] This exact command has now failed 3 times/ },
];

const held = holdPerTest();

function sessionMarkers(dataDir: string): Marker[] {
  const runs = join(dataDir, 'runs');
  return readdirSync(runs).flatMap((dir) => readMarkers(join(runs, dir, 'markers.jsonl')).markers);
}

/** Runs the retrying model through `agent` with `env` added; returns the server and the markers. */
async function retryingSession(agent: AgentCase, env: Record<string, string>) {
  const sandbox = held.sandbox(makeSandbox(`cordon-e2e-loop-${agent.name}-`));
  const workdir = sandbox.dir('work');
  const file = join(workdir, 'notes.txt');
  const steps = [
    step.shell(`sh -c 'exit 1'`),
    step.write(file, 'a fix that does not fix it\n'),
    // The same command, spaced and quoted differently: one normalised command.
    step.shell(`sh  -c "exit 1"`),
    step.shell(`sh -c 'exit 1'`),
    step.shell(`sh -c 'exit 1'`),
    step.text('Giving up.'),
  ];
  const server = held.server(await agent.start({ steps, workdir }));
  linkPluginRoots(sandbox.dataDir, [{ name: `@cordon/${agent.name}`, root: join(REPO_ROOT, 'plugins', agent.name) }]);
  const session = agent.session({ origin: server.origin, home: sandbox.dir('home'), workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off', ...env } });
  const install = await runCordon(['install-hooks', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir });
  expect(install.exitCode, install.stderr + install.stdout).toBe(0);
  const run = await session.run();
  expect(run.timedOut).toBe(false);
  expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
  expect(readFileSync(file, 'utf8')).toBe('a fix that does not fix it\n');
  return { server, markers: sessionMarkers(sandbox.dataDir) };
}

describe.each(CASES)('$name: the loop breaker', (agent) => {
  it('tells the model after the third failure of one command, not before', async () => {
    const { server, markers } = await retryingSession(agent, {});
    const turns = server.requests.filter((r) => agent.results(r.body) > 0);
    const seen = turns.map((r) => ({ results: agent.results(r.body), feedback: JSON.stringify(r.body).includes(FEEDBACK) }));
    // Requests carrying up to three results (two failures and the edit) have no feedback; the one
    // after the third failure (four results) and the next do.
    expect(seen.filter((t) => t.results <= 3 && t.feedback), JSON.stringify(seen)).toEqual([]);
    expect(seen.filter((t) => t.results === 4).map((t) => t.feedback)).toContain(true);
    expect(seen.filter((t) => t.results === 5).every((t) => t.feedback)).toBe(true);
    // Claude Code: a system message of hook context; Codex: a developer message; Gemini CLI: appended to the function response.
    expect(JSON.stringify(turns.find((r) => agent.results(r.body) === 4)!.body)).toMatch(agent.shape);

    const ends = markers.filter((m) => m.event === 'tool_end' && m.tool === 'shell');
    expect(ends.map((m) => m.exit_status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(ends.map((m) => m.loop_failures)).toEqual([undefined, undefined, 3, 4]);
    expect(ends.map((m) => m.loop_repeat)).toEqual([undefined, undefined, undefined, true]);
    expect(ends[2]!.feedback_by).toEqual(['cordon']);
  }, 180_000);

  it('says nothing with CORDON_LOOP_BREAKER=off', async () => {
    const { server, markers } = await retryingSession(agent, { CORDON_LOOP_BREAKER: 'off' });
    const turns = server.requests.filter((r) => agent.results(r.body) > 0);
    expect(turns.map((r) => agent.results(r.body))).toContain(5);
    expect(turns.filter((r) => JSON.stringify(r.body).includes(FEEDBACK))).toEqual([]);
    const ends = markers.filter((m) => m.event === 'tool_end' && m.tool === 'shell');
    expect(ends).toHaveLength(4);
    expect(ends.every((m) => m.exit_status === 'failed' && m.loop_failures === undefined && m.feedback_by === undefined)).toBe(true);
  }, 180_000);
});
