import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reduceSession } from '../../../packages/host/src/telemetry/reduce/index.js';
import { SAMPLER_FILES } from '../../../packages/host/src/telemetry/sampler/files.js';
import { REPO_ROOT, linkPluginRoots, makeSandbox, runCordon } from '../../support/cli.js';
import { FakeAnthropic, FakeGemini, FakeOpenAIResponses, claudeSession, codexSession, geminiSession, holdPerTest, step, type AgentSession, type FakeModelServer, type SessionOptions, type Step } from '../../support/fake-models/index.js';
import { waitFor } from '../../support/wait.js';

// Records the fixture batch of `cordon analyze` (test/fixtures/analyze/<agent>.json): the real
// Claude Code, Codex and Gemini CLI, hooks installed by `install-hooks --write`, the real session
// sampler at 250 ms, each playing one scripted session with a 400 MiB allocation, a retry loop of
// a failing `npm test`, a write, a read and a git command. The reduced session (summary, calls,
// samples) is written as the fixture. Runs only with CORDON_RECORD_ANALYZE_FIXTURES=1 (it
// overwrites checked-in fixtures); the fixtures are then tested by
// packages/host/test/telemetry/analyze/fixtures.test.ts.

const RECORD = process.env.CORDON_RECORD_ANALYZE_FIXTURES === '1';
const OUT = join(REPO_ROOT, 'test/fixtures/analyze');
const held = holdPerTest();

const CASES: ReadonlyArray<{ name: 'claude-code' | 'codex' | 'gemini'; start: (o: { steps: readonly Step[]; workdir: string }) => Promise<FakeModelServer>; session: (o: SessionOptions) => AgentSession }> = [
  { name: 'claude-code', start: (o) => FakeAnthropic.start(o), session: claudeSession },
  { name: 'codex', start: (o) => FakeOpenAIResponses.start(o), session: codexSession },
  { name: 'gemini', start: (o) => FakeGemini.start(o), session: geminiSession },
];

async function samplerStopped(dir: string): Promise<void> {
  const file = join(dir, SAMPLER_FILES.events);
  await waitFor(
    () => {
      const events = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string }) : [];
      const starts = events.filter((e) => e.event === 'start').length;
      return starts > 0 && events.filter((e) => e.event === 'stop').length >= starts;
    },
    { what: `the sampler of ${dir} to stop`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

describe.runIf(RECORD).each(CASES)('record the analyze fixture of $name', (agent) => {
  it('plays the scripted session and stores its reduced records', async () => {
    const sandbox = held.sandbox(makeSandbox(`cordon-analyze-fixture-${agent.name}-`));
    const workdir = sandbox.dir('work');
    writeFileSync(join(workdir, 'package.json'), JSON.stringify({ name: 'fixture', private: true, scripts: { test: 'node -e "setTimeout(() => process.exit(1), 700)"' } }));
    const file = join(workdir, 'notes.txt');
    const steps = [
      step.shell(`node -e "const b = Buffer.alloc(400 * 2 ** 20, 1); setTimeout(() => console.log(b.length), 1500)"`),
      step.shell('npm test'),
      step.shell('npm test'),
      step.shell('npm test'),
      step.write(file, 'one\n'),
      step.read(file),
      step.shell('git --version'),
      step.text('All done.'),
    ];
    const server = held.server(await agent.start({ steps, workdir }));
    linkPluginRoots(sandbox.dataDir, [{ name: `@cordon/${agent.name}`, root: join(REPO_ROOT, 'plugins', agent.name) }]);
    const session = agent.session({ origin: server.origin, home: sandbox.dir('home'), workdir, env: sandbox.env });
    const install = await runCordon(['install-hooks', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir });
    expect(install.exitCode, install.stderr + install.stdout).toBe(0);
    const run = await session.run();
    expect(run.timedOut).toBe(false);
    const runs = join(sandbox.dataDir, 'runs');
    const dir = join(runs, readdirSync(runs)[0]!);
    await samplerStopped(dir);
    const reduced = reduceSession(dir);
    expect(reduced.calls.length).toBeGreaterThanOrEqual(6);
    expect(reduced.samples.length).toBeGreaterThan(10);
    const fixture = { recorded_with: agent.name, summary: { ...reduced.summary, dir: '' }, calls: reduced.calls, samples: reduced.samples };
    writeFileSync(join(OUT, `${agent.name}.json`), JSON.stringify(fixture) + '\n');
  }, 240_000);
});
