import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readMarkers, type Marker } from '../../../packages/host/src/telemetry/markers.js';
import { SAMPLER_FILES } from '../../../packages/host/src/telemetry/sampler/files.js';
import { REPO_ROOT, linkPluginRoots, makeSandbox, runCordon } from '../../support/cli.js';
import { FakeAnthropic, FakeGemini, FakeOpenAIResponses, claudeSession, codexSession, geminiSession, holdPerTest, step, type AgentSession, type FakeModelServer, type SeenToolResult, type SessionOptions, type Step } from '../../support/fake-models/index.js';
import { waitFor } from '../../support/wait.js';

// The real Claude Code, Codex and Gemini CLI, with hooks installed by `cordon install-hooks
// --write` into isolated homes, each play one scripted session against a fake model server:
// a shell call, a write, a read, an edit, a failing shell call and a shell call that a test tap
// (a fixture plugin linked into the data dir) denies. The markers must pair up exactly.

const DENY_PLUGIN = fileURLToPath(new URL('./fixtures/plugin-deny/', import.meta.url));
const REWRITE_PLUGIN = fileURLToPath(new URL('./fixtures/plugin-rewrite/', import.meta.url));
const BLOCK = 'CORDON_E2E_BLOCK';
const REASON = 'blocked by the cordon e2e test tap';

type Server = FakeModelServer & { toolResults(): SeenToolResult[] };

interface AgentCase {
  readonly name: 'claude-code' | 'codex' | 'gemini';
  readonly start: (o: { steps: readonly Step[]; workdir: string }) => Promise<Server>;
  readonly session: (o: SessionOptions) => AgentSession;
  /** Native tool names of the five executed calls, in script order. */
  readonly tools: readonly string[];
  /** The agent's call id for step `i`, or `undefined` when the agent has none (keys are hashes). */
  readonly callId: (i: number) => string | undefined;
  /** What the model is told about the denied call, in the agent's own words (the agent hook docs; docs/references.md, canonical names). */
  readonly denied: RegExp;
  /** Native session start / end event names. */
  readonly sessionEvents: readonly [string, string];
}

const CASES: readonly AgentCase[] = [
  {
    name: 'claude-code',
    start: (o) => FakeAnthropic.start(o),
    session: claudeSession,
    tools: ['Bash', 'Write', 'Read', 'Edit', 'Bash'],
    callId: (i) => `toolu_cordon_${i}`,
    denied: new RegExp(`^PreToolUse:Bash hook error: ${REASON}`),
    sessionEvents: ['SessionStart', 'SessionEnd'],
  },
  {
    name: 'codex',
    start: (o) => FakeOpenAIResponses.start(o),
    session: codexSession,
    tools: ['Bash', 'apply_patch', 'Bash', 'apply_patch', 'Bash'],
    callId: (i) => `call_cordon_${i}`,
    denied: new RegExp(`^Command blocked by PreToolUse hook: ${REASON}\\. Command: echo ${BLOCK}`),
    sessionEvents: ['SessionStart', 'SessionEnd'],
  },
  {
    name: 'gemini',
    start: (o) => FakeGemini.start(o),
    session: geminiSession,
    tools: ['run_shell_command', 'write_file', 'read_file', 'replace', 'run_shell_command'],
    callId: () => undefined,
    denied: new RegExp(`^Tool execution blocked: ${REASON}`),
    sessionEvents: ['SessionStart', 'SessionEnd'],
  },
];

const held = holdPerTest();

/** Every marker cordon wrote in the data dir, per session directory. */
function allMarkers(dataDir: string): { markers: Marker[]; badLines: number } {
  const runs = join(dataDir, 'runs');
  const markers: Marker[] = [];
  let badLines = 0;
  for (const dir of readdirSync(runs)) {
    const log = readMarkers(join(runs, dir, 'markers.jsonl'));
    markers.push(...log.markers);
    badLines += log.badLines.length;
  }
  return { markers, badLines };
}

/** The session's sampler events once its last sampler has stopped (polls up to 60 s; a live sampler would race the cleanup). */
function samplerStopped(dir: string): Promise<Array<{ event: string; pid?: number }>> {
  const file = join(dir, SAMPLER_FILES.events);
  let events: Array<{ event: string; pid?: number }> = [];
  return waitFor(
    () => {
      events = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
      const starts = events.filter((e) => e.event === 'start').length;
      return starts > 0 && events.filter((e) => e.event === 'stop').length >= starts ? events : undefined;
    },
    { what: () => `the sampler of ${dir} to stop: ${JSON.stringify(events)}`, timeoutMs: 60_000, intervalMs: 100 },
  );
}

describe.each(CASES)('$name with cordon hooks installed by install-hooks --write', (agent) => {
  it('records one start and one end per executed call, failures as failures, and denies the tapped call in the agent\'s own terms', async () => {
    const sandbox = held.sandbox(makeSandbox(`cordon-e2e-${agent.name}-`));
    const workdir = sandbox.dir('work');
    const file = join(workdir, 'notes.txt');
    const steps = [
      step.shell('echo hello-from-cordon-e2e'),
      step.write(file, 'one\n'),
      step.read(file),
      step.edit(file, 'one', 'two'),
      step.shell('ls /nonexistent-cordon-e2e-dir'),
      step.shell(`echo ${BLOCK}`),
      step.text('All done.'),
    ];
    const server = held.server(await agent.start({ steps, workdir }));
    linkPluginRoots(sandbox.dataDir, [
      { name: `@cordon/${agent.name}`, root: join(REPO_ROOT, 'plugins', agent.name) },
      { name: 'cordon-test-deny', root: DENY_PLUGIN },
    ]);
    const session = agent.session({ origin: server.origin, home: sandbox.dir('home'), workdir, env: sandbox.env });

    const install = await runCordon(['install-hooks', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir });
    expect(install.exitCode, install.stderr + install.stdout).toBe(0);
    expect(install.stdout).toContain(`wrote ${session.userConfig}`);

    const run = await session.run();
    expect(run.timedOut).toBe(false);
    // The agent's own exit code: hooks never change it (the same script exits 0 without hooks).
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('two\n');

    // The denied call reached the model in the agent's own words; nothing else was blocked.
    const seen = server.toolResults();
    expect(seen).toHaveLength(6);
    expect(seen[5]!.text).toMatch(agent.denied);
    for (const r of seen.slice(0, 5)) expect(r.text).not.toContain(REASON);

    const { markers, badLines } = allMarkers(sandbox.dataDir);
    expect(badLines).toBe(0);
    const sessions = new Set(markers.map((m) => m.session_id));
    expect(sessions.size).toBe(1);
    expect(markers.every((m) => m.agent === agent.name && m.v === 1)).toBe(true);
    expect(markers.filter((m) => m.event === 'session_start').map((m) => m.native_event)).toEqual([agent.sessionEvents[0]]);
    expect(markers.filter((m) => m.event === 'session_end').map((m) => m.native_event)).toEqual([agent.sessionEvents[1]]);

    const starts = markers.filter((m) => m.event === 'tool_start');
    const ends = markers.filter((m) => m.event === 'tool_end');
    const denied = markers.filter((m) => m.event === 'tool_denied');
    // No marker lost: five executed calls, each one start and one end; one denial.
    expect(starts).toHaveLength(5);
    expect(ends).toHaveLength(5);
    expect(denied).toHaveLength(1);
    expect(new Set(starts.map((m) => m.call_key)).size).toBe(5);
    for (const [i, start] of starts.entries()) {
      const end = ends.filter((m) => m.call_key === start.call_key);
      expect(end, `end marker for ${start.call_key}`).toHaveLength(1);
      expect(start.tool_name).toBe(agent.tools[i]);
      expect(end[0]!.ts).toBeGreaterThan(start.ts);
      const id = agent.callId(i);
      if (id !== undefined) expect(start.call_key).toBe(id);
      else expect(start.call_key).toMatch(/^h:[0-9a-f]{16}\.0$/);
    }
    expect(starts.map((m) => m.tool)).toEqual(agent.name === 'codex' ? ['shell', 'write', 'shell', 'edit', 'shell'] : ['shell', 'write', 'read', 'edit', 'shell']);
    const endOf = (i: number) => ends.find((m) => m.call_key === starts[i]!.call_key)!;
    for (const i of [0, 1, 2, 3]) expect(endOf(i).exit_status, `call ${i}`).toBe('ok');
    // The failing shell call is recorded as a failure with its exit code (ls exits 2).
    expect(endOf(4).exit_status).toBe('failed');
    expect(endOf(4).exit_code).toBe(2);
    expect(endOf(4).command).toBe('ls /nonexistent-cordon-e2e-dir');
    expect(denied[0]).toMatchObject({ exit_status: 'denied', decision: 'deny', decided_by: 'test-deny', error: REASON, command: `echo ${BLOCK}` });

    // Every marker names the agent process, and it is one process for the whole session.
    const pids = new Set(markers.map((m) => m.agent_pid));
    expect(pids.size).toBe(1);
    const [pid] = pids;
    expect(pid).toBeGreaterThan(1);
    if (agent.name === 'claude-code') expect(pid).toBe(run.pid);
    expect(markers.every((m) => m.hook_overhead_ms > 0 && m.hook_pid !== pid)).toBe(true);

    // The hooks started the session's sampler on the agent, and session end (or the agent's exit) stopped it.
    const events = await samplerStopped(join(sandbox.dataDir, 'runs', readdirSync(join(sandbox.dataDir, 'runs'))[0]!));
    expect(events.filter((e) => e.event === 'start').length).toBeGreaterThanOrEqual(1);
    expect(events.every((e) => e.event !== 'start' || e.pid !== undefined)).toBe(true);
  }, 180_000);

  it('runs the input a tap rewrote, and records both the agent\'s command and the rewritten one', async () => {
    const sandbox = held.sandbox(makeSandbox(`cordon-e2e-rewrite-${agent.name}-`));
    const workdir = sandbox.dir('work');
    const server = held.server(await agent.start({ steps: [step.shell('echo CORDON_E2E_REWRITE original'), step.text('All done.')], workdir }));
    linkPluginRoots(sandbox.dataDir, [
      { name: `@cordon/${agent.name}`, root: join(REPO_ROOT, 'plugins', agent.name) },
      { name: 'cordon-test-rewrite', root: REWRITE_PLUGIN },
    ]);
    const session = agent.session({ origin: server.origin, home: sandbox.dir('home'), workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off' } });
    expect((await runCordon(['install-hooks', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir })).exitCode).toBe(0);
    const run = await session.run();
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const seen = server.toolResults();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.text).toContain('rewritten-by-cordon');
    expect(seen[0]!.text).not.toContain('original');
    const { markers } = allMarkers(sandbox.dataDir);
    const start = markers.find((m) => m.event === 'tool_start')!;
    expect(start).toMatchObject({ decision: 'rewrite', decided_by: 'test-rewrite', command: 'echo CORDON_E2E_REWRITE original', rewritten_command: 'echo rewritten-by-cordon' });
    const end = markers.find((m) => m.event === 'tool_end')!;
    // The after event carries the rewritten input; the pair still matches (Gemini: re-keyed on it).
    expect(end.call_key).toBe(start.call_key);
    expect(end.exit_status).toBe('ok');
  }, 180_000);

  it('cordon control guard: the agent\'s shell call runs under cordon control run, and reduce joins the run to the call', async () => {
    const sandbox = held.sandbox(makeSandbox(`cordon-e2e-guard-${agent.name}-`));
    const workdir = sandbox.dir('work');
    const server = held.server(await agent.start({ steps: [step.shell('echo CORDON_E2E_GUARDED'), step.text('All done.')], workdir }));
    linkPluginRoots(sandbox.dataDir, [
      { name: `@cordon/${agent.name}`, root: join(REPO_ROOT, 'plugins', agent.name) },
      { name: '@cordon/cgroup-linux', root: join(REPO_ROOT, 'plugins', 'cgroup-linux') },
    ]);
    const session = agent.session({ origin: server.origin, home: sandbox.dir('home'), workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off' } });
    expect((await runCordon(['install-hooks', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir })).exitCode).toBe(0);
    expect((await runCordon(['control', 'guard', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir })).exitCode).toBe(0);
    const run = await session.run();
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const seen = server.toolResults();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.text).toContain('CORDON_E2E_GUARDED');
    // The command ran through `cordon control run`: its record names the session and the command.
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[]; session_id: string | null });
    // `bash -c <guard script> cordon-guard <state dir> <command>` (docs/control.md, the guard per agent).
    expect(runs.map((r) => [r.argv[0], r.argv[1], r.argv[3], r.argv.at(-1)])).toEqual([['bash', '-c', 'cordon-guard', 'echo CORDON_E2E_GUARDED']]);
    const { markers } = allMarkers(sandbox.dataDir);
    const start = markers.find((m) => m.event === 'tool_start')!;
    expect(start).toMatchObject({ decision: 'rewrite', decided_by: 'cgroup-linux', command: 'echo CORDON_E2E_GUARDED' });
    expect(runs[0]!.session_id).toBe(start.session_id);
    const reduced = await runCordon(['reduce', '--session', start.session_id, '--jsonl'], { env: session.env });
    const calls = reduced.stdout.trim().split('\n').map((l) => JSON.parse(l) as { command: string; guard?: { tier: string; exit_code: number } });
    expect(calls.find((c) => c.command === 'echo CORDON_E2E_GUARDED')?.guard).toMatchObject({ tier: 'medium', exit_code: 0 });
  }, 180_000);

  // Issue 28: Claude Code keeps the working directory between Bash calls; a guarded `cd` must too.
  it.runIf(agent.name === 'claude-code')('cordon control guard: a cd in one guarded call holds in the next, as unguarded', async () => {
    const results: string[][] = [];
    for (const guarded of [false, true]) {
      const sandbox = held.sandbox(makeSandbox(`cordon-e2e-guard-cd-${guarded}-`));
      const workdir = sandbox.dir('work');
      const server = held.server(await agent.start({ steps: [step.shell('mkdir -p sub && cd sub'), step.shell('pwd'), step.text('All done.')], workdir }));
      linkPluginRoots(sandbox.dataDir, [
        { name: `@cordon/${agent.name}`, root: join(REPO_ROOT, 'plugins', agent.name) },
        { name: '@cordon/cgroup-linux', root: join(REPO_ROOT, 'plugins', 'cgroup-linux') },
      ]);
      const session = agent.session({ origin: server.origin, home: sandbox.dir('home'), workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off' } });
      expect((await runCordon(['install-hooks', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir })).exitCode).toBe(0);
      if (guarded) expect((await runCordon(['control', 'guard', '--agent', agent.name, '--write'], { env: session.env, cwd: workdir })).exitCode).toBe(0);
      const run = await session.run();
      expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
      const seen = server.toolResults();
      expect(seen).toHaveLength(2);
      expect(seen[1]!.text).toContain(`${realpathSync(workdir)}/sub`);
      if (guarded) expect(readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
      results.push(seen.map((r) => r.text.replaceAll(realpathSync(workdir), '<work>')));
    }
    expect(results[1]).toEqual(results[0]);
  }, 360_000);
});

// Issue 11 item 1: CODEX_HOME a symlink into a dotfiles folder and codex not on PATH at install
// time. Codex canonicalises CODEX_HOME, so the trust keys must name the real folder; the old
// keys (the link's path) left every hook untrusted and none ran.
describe('codex with CODEX_HOME a symlink to a dotfiles folder', () => {
  it('hooks installed without codex on PATH run; a reinstall with codex on PATH leaves exactly four trust entries; uninstall leaves none', async () => {
    const sandbox = held.sandbox(makeSandbox('cordon-e2e-codex-home-link-'));
    const workdir = sandbox.dir('work');
    const server = held.server(await FakeOpenAIResponses.start({ steps: [step.shell('echo via-linked-codex-home'), step.text('All done.')], workdir }));
    linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/codex', root: join(REPO_ROOT, 'plugins', 'codex') }]);
    const home = sandbox.dir('home');
    const session = codexSession({ origin: server.origin, home, workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off' } });
    // Move the Codex home into "dotfiles" and leave a link where CODEX_HOME points.
    const real = join(home, 'dotfiles', 'codex');
    mkdirSync(join(home, 'dotfiles'));
    renameSync(join(home, '.codex'), real);
    symlinkSync(real, join(home, '.codex'));
    const withoutCodex = { ...session.env, PATH: (session.env.PATH ?? '').split(delimiter).filter((dir) => !existsSync(join(dir, 'codex'))).join(delimiter) };

    const install = await runCordon(['install-hooks', '--agent', 'codex', '--write'], { env: withoutCodex, cwd: workdir });
    expect(install.exitCode, install.stderr + install.stdout).toBe(0);
    expect(install.stdout).toContain('warning: codex: trust NOT confirmed');
    expect(lstatSync(join(home, '.codex')).isSymbolicLink()).toBe(true);
    const keys = () => Object.keys((parseToml(readFileSync(join(real, 'config.toml'), 'utf8')) as any).hooks?.state ?? {});
    expect(keys().every((k) => k.startsWith(`${realpathSync(real)}/hooks.json:`))).toBe(true);

    const run = await session.run();
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const { markers } = allMarkers(sandbox.dataDir);
    expect(markers.map((m) => m.event).sort()).toEqual(['session_end', 'session_start', 'tool_end', 'tool_start']);

    const again = await runCordon(['install-hooks', '--agent', 'codex', '--write', '--json'], { env: session.env, cwd: workdir });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).agents[0].warnings).toEqual([]);
    expect(keys()).toHaveLength(4);
    const un = await runCordon(['uninstall-hooks', '--agent', 'codex', '--write'], { env: session.env, cwd: workdir });
    expect(un.exitCode, un.stderr).toBe(0);
    expect(keys()).toHaveLength(0);
    expect(lstatSync(join(home, '.codex')).isSymbolicLink()).toBe(true);
  }, 180_000);
});

// A settings.json saved with a byte order mark (as some Windows editors do): cordon reads it as
// the agent does. Claude Code runs the hooks of such a file, so cordon installs into it and keeps
// the mark; Gemini CLI refuses to start with it, so cordon refuses too and names the mark.
describe('a settings.json that starts with a byte order mark (U+FEFF)', () => {
  const BOM = '\uFEFF';

  it('Claude Code: install-hooks writes into it and keeps the mark, and Claude Code runs the hooks', async () => {
    const sandbox = held.sandbox(makeSandbox('cordon-e2e-bom-claude-'));
    const workdir = sandbox.dir('work');
    const server = held.server(await FakeAnthropic.start({ steps: [step.shell('echo with-bom'), step.text('All done.')], workdir }));
    linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/claude-code', root: join(REPO_ROOT, 'plugins', 'claude-code') }]);
    const session = claudeSession({ origin: server.origin, home: sandbox.dir('home'), workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off' } });
    writeFileSync(session.userConfig, `${BOM}{\n  "model": "sonnet"\n}\n`);
    const install = await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env: session.env, cwd: workdir });
    expect(install.exitCode, install.stderr + install.stdout).toBe(0);
    const written = readFileSync(session.userConfig, 'utf8');
    expect(written.startsWith(`${BOM}{\n  "model": "sonnet",\n  "hooks": {`)).toBe(true);
    const run = await session.run();
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    expect(allMarkers(sandbox.dataDir).markers.map((m) => m.event)).toEqual(['session_start', 'tool_start', 'tool_end', 'session_end']);
    const un = await runCordon(['uninstall-hooks', '--agent', 'claude-code', '--write'], { env: session.env, cwd: workdir });
    expect(un.exitCode, un.stderr).toBe(0);
    expect(readFileSync(session.userConfig, 'utf8')).toBe(`${BOM}{\n  "model": "sonnet"\n}\n`);
  }, 180_000);

  it('Gemini CLI: refuses to start with it, and install-hooks refuses it naming the mark (exit 2), the file untouched', async () => {
    const sandbox = held.sandbox(makeSandbox('cordon-e2e-bom-gemini-'));
    const workdir = sandbox.dir('work');
    const server = held.server(await FakeGemini.start({ steps: [step.text('All done.')], workdir }));
    linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/gemini', root: join(REPO_ROOT, 'plugins', 'gemini') }]);
    const session = geminiSession({ origin: server.origin, home: sandbox.dir('home'), workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off' } });
    const text = `${BOM}${readFileSync(session.userConfig, 'utf8')}`;
    writeFileSync(session.userConfig, text);
    const run = await session.run();
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(`${session.userConfig}:`);
    const install = await runCordon(['install-hooks', '--agent', 'gemini', '--write'], { env: session.env, cwd: workdir });
    expect(install.exitCode).toBe(2);
    expect(install.stderr).toContain(`${session.userConfig} is not valid JSON with comments (starts with a byte order mark (U+FEFF); save it as UTF-8 without BOM); refusing to edit it`);
    expect(readFileSync(session.userConfig, 'utf8')).toBe(text);
  }, 180_000);
});

// Gemini CLI reads its user settings from $GEMINI_CLI_HOME/.gemini when that variable is set;
// install-hooks wrote ~/.gemini/settings.json, which that Gemini never reads.
describe('gemini with GEMINI_CLI_HOME set', () => {
  it('install-hooks writes $GEMINI_CLI_HOME/.gemini/settings.json and Gemini CLI runs the hooks from there', async () => {
    const sandbox = held.sandbox(makeSandbox('cordon-e2e-gemini-cli-home-'));
    const workdir = sandbox.dir('work');
    const server = held.server(await FakeGemini.start({ steps: [step.shell('echo via-gemini-cli-home'), step.text('All done.')], workdir }));
    linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/gemini', root: join(REPO_ROOT, 'plugins', 'gemini') }]);
    const home = sandbox.dir('home');
    const session = geminiSession({ origin: server.origin, home, workdir, env: { ...sandbox.env, CORDON_SAMPLER: 'off' } });
    // The harness strips GEMINI_* from what it is given; its run uses this very env object.
    const geminiHome = sandbox.dir('gemini-home');
    renameSync(join(home, '.gemini'), join(geminiHome, '.gemini'));
    const env = Object.assign(session.env, { GEMINI_CLI_HOME: geminiHome });
    const install = await runCordon(['install-hooks', '--agent', 'gemini', '--write'], { env, cwd: workdir });
    expect(install.exitCode, install.stderr + install.stdout).toBe(0);
    expect(readFileSync(join(geminiHome, '.gemini', 'settings.json'), 'utf8')).toContain('hook --agent gemini');
    expect(existsSync(join(home, '.gemini'))).toBe(false);
    const run = await session.run();
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    expect(allMarkers(sandbox.dataDir).markers.map((m) => m.event)).toEqual(['session_start', 'tool_start', 'tool_end', 'session_end']);
  }, 180_000);
});
