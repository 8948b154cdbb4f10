import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSandbox } from '../../support/cli.js';
import { FakeAnthropic, FakeGemini, FakeOpenAIResponses, claudeSession, codexSession, geminiSession, holdPerTest, step, type AgentSession, type FakeModelServer, type SeenToolResult, type Step } from '../../support/fake-models/index.js';

// The fake model servers drive the real agents (no hooks here): every step kind reaches the
// agent's real tool, and the tool results come back to the fake.

type Server = FakeModelServer & { toolResults(): SeenToolResult[] };

const held = holdPerTest();

const cases: Array<[string, (o: { steps: readonly Step[]; workdir: string }) => Promise<Server>, typeof claudeSession]> = [
  ['claude-code', (o) => FakeAnthropic.start(o), claudeSession],
  ['codex', (o) => FakeOpenAIResponses.start(o), codexSession],
  ['gemini', (o) => FakeGemini.start(o), geminiSession],
];

describe.each(cases)('%s against its fake model server', (_name, start, makeSession) => {
  it('plays shell, write, read, edit and node -e steps through the real agent', async () => {
    const sandbox = held.sandbox(makeSandbox('cordon-fake-models-'));
    const workdir = sandbox.dir('work');
    const file = join(workdir, 'notes.txt');
    const server = held.server(
      await start({
        workdir,
        steps: [step.shell('echo hello-from-fake'), step.write(file, 'one\n'), step.read(file), step.edit(file, 'one', 'two'), step.shell(`node -e "console.log(6*7)"`), step.text('All done.')],
      }),
    );
    const session: AgentSession = makeSession({ origin: server.origin, home: sandbox.dir('home'), workdir, env: sandbox.env });
    const run = await session.run();
    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('two\n');
    const results = server.toolResults();
    expect(results).toHaveLength(5);
    expect(results[0]!.text).toContain('hello-from-fake');
    expect(results[2]!.text).toContain('one');
    expect(results[4]!.text).toContain('42');
    expect(server.requestCount).toBeGreaterThanOrEqual(6);
  });
});

describe('fake model server bounds', () => {
  it('answers 500 past maxRequests and records at most maxRecorded', async () => {
    const server = held.server(await FakeAnthropic.start({ steps: [], maxRequests: 3, maxRecorded: 2 }));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.origin}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [], tools: [{ name: 'Bash' }] }) });
      statuses.push(res.status);
      await res.text();
    }
    expect(statuses).toEqual([200, 200, 200, 500, 500]);
    expect(server.requests).toHaveLength(2);
    expect(server.requestCount).toBe(5);
    await server.close();
    await expect(fetch(`${server.origin}/v1/messages`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
