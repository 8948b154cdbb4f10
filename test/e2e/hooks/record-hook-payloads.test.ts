import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon } from '../../support/cli.js';
import { FakeAnthropic, FakeGemini, FakeOpenAIResponses, claudeSession, codexSession, geminiSession, holdPerTest, step, type AgentSession, type FakeModelServer, type SessionOptions, type Step } from '../../support/fake-models/index.js';
import { HOOK_PAYLOADS } from '../../support/fixtures.js';

// Captures test/fixtures/hook-payloads again from the real Claude Code, Codex and Gemini CLI
// (.cache/agents): `install-hooks --command <capture>` writes a capture program into each agent's
// hook config in place of cordon, the agent plays one scripted session against its fake model
// server, and the program copies every payload it is given into a file named after the agent, the
// event, the tool and the variant. Runs only with CORDON_RECORD_HOOK_PAYLOADS=1 (it overwrites
// checked-in fixtures); see test/fixtures/hook-payloads/README.md.

const RECORD = process.env.CORDON_RECORD_HOOK_PAYLOADS === '1';
const BLOCK = 'BLOCKME';
const held = holdPerTest();

const CASES: ReadonlyArray<{ name: 'claude-code' | 'codex' | 'gemini'; prefix: string; start: (o: { steps: readonly Step[]; workdir: string }) => Promise<FakeModelServer>; session: (o: SessionOptions) => AgentSession }> = [
  { name: 'claude-code', prefix: 'claude-code', start: (o) => FakeAnthropic.start(o), session: claudeSession },
  { name: 'codex', prefix: 'codex', start: (o) => FakeOpenAIResponses.start(o), session: codexSession },
  { name: 'gemini', prefix: 'gemini-cli', start: (o) => FakeGemini.start(o), session: geminiSession },
];

/**
 * The capture program: called as `<it> hook --agent NAME` with the payload on stdin, it writes
 * `<out>/<prefix>.<event>[.<tool>][-<variant>].json` (the first payload of each name wins) and
 * refuses a shell call holding BLOCKME the way every agent understands (exit 2, reason on stderr).
 */
function captureProgram(out: string, prefix: string): string {
  return `#!${process.execPath}
const fs = require('node:fs');
fs.appendFileSync(${JSON.stringify(out)} + '/../capture.log', process.argv.slice(2).join(' ') + '\\n');
const payload = JSON.parse(fs.readFileSync(0, 'utf8'));
const input = payload.tool_input && typeof payload.tool_input === 'object' ? payload.tool_input : {};
const command = String(input.command ?? input.cmd ?? '');
const event = payload.hook_event_name;
const variant = command.includes(${JSON.stringify(BLOCK)}) ? '-blocked-by-hook' : command.includes('nonexistent') ? '-failing-command' : '';
const name = [${JSON.stringify(prefix)}, event, payload.tool_name].filter(Boolean).join('.') + variant + '.json';
try { fs.writeFileSync(${JSON.stringify(out)} + '/' + name, JSON.stringify(payload, null, 2) + '\\n', { flag: 'wx' }); } catch {}
if (variant === '-blocked-by-hook' && /^(PreToolUse|BeforeTool)$/.test(event)) {
  process.stderr.write('cordon-capture: blocked because the command contains ${BLOCK}\\n');
  process.exit(2);
}
`;
}

describe.runIf(RECORD).each(CASES)('capture the hook payloads of $name', (agent) => {
  it('plays the scripted session and writes one payload file per event, tool and variant', async () => {
    const sandbox = held.sandbox(makeSandbox(`cordon-hook-capture-${agent.name}-`));
    const workdir = sandbox.dir('work');
    const out = sandbox.dir('captured');
    // Named like the real command, so the configs read as they do for users.
    const program = join(sandbox.dir('capture-bin'), 'cordon');
    writeFileSync(program, captureProgram(out, agent.prefix));
    chmodSync(program, 0o755);
    const file = join(workdir, 'notes.txt');
    const steps = [
      step.shell('echo hello-from-fake', 'Print a greeting'),
      step.write(file, 'one\n'),
      step.read(file),
      step.edit(file, 'one', 'two'),
      step.shell('ls /nonexistent-dir-xyz', 'A command that fails'),
      step.shell(`echo ${BLOCK}`, 'Should be blocked by hook'),
      step.text('All done.'),
    ];
    const server = held.server(await agent.start({ steps, workdir }));
    // install-hooks needs the agent's plugin; the capture program, not cordon, then receives the payloads.
    linkPlugins(sandbox.dataDir, [agent.name]);
    const session = agent.session({ origin: server.origin, home: sandbox.dir('home'), workdir, env: sandbox.env });
    const install = await runCordon(['install-hooks', '--agent', agent.name, '--write', '--command', program], { env: session.env, cwd: workdir });
    expect(install.exitCode, install.stderr + install.stdout).toBe(0);
    const run = await session.run();
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);

    const captured = readdirSync(out).sort();
    const log = join(sandbox.root, 'capture.log');
    expect(captured.length, `no payload captured; the program ran ${existsSync(log) ? readFileSync(log, 'utf8').split('\n').length - 1 : 0} times; agent stderr: ${run.stderr.slice(-1500)}`).toBeGreaterThan(0);
    // Every checked-in payload of this agent for an event cordon installs a hook for came again.
    const kept = readdirSync(HOOK_PAYLOADS).filter((f) => f.startsWith(`${agent.prefix}.`) && f.endsWith('.json'));
    const events = new Set(captured.map((f) => f.split('.')[1]));
    const expected = kept.filter((f) => events.has(f.split('.')[1]!));
    expect(captured).toEqual(expect.arrayContaining(expected));
    for (const f of captured) copyFileSync(join(out, f), join(HOOK_PAYLOADS, f));
    const stale = kept.filter((f) => !captured.includes(f));
    if (stale.length) console.log(`${agent.name}: not captured again (no hook installed for their event): ${stale.join(', ')}`);
    expect(existsSync(join(HOOK_PAYLOADS, `${agent.prefix}.${agent.name === 'gemini' ? 'BeforeTool.run_shell_command' : 'PreToolUse.Bash'}.json`))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, captured[0]!), 'utf8'))).toBeTypeOf('object');
  }, 240_000);
});
