import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardDecision, hintInCommand, shellQuote } from '../../../plugins/cgroup-linux/src/guard.js';
import { REPO_ROOT, linkPluginRoots, makeSandbox, runCordon, runProcess, type Sandbox } from '../../support/cli.js';
import { HOOK_PAYLOADS } from '../../support/fixtures.js';
import fc from 'fast-check';

// `cordon control guard`: the real `cordon hook` of Claude Code, Codex and Gemini CLI, on payloads
// captured from those agents, rewrites shell calls to run under `cordon control run`, in each
// agent's own rewrite field; the rewritten command then runs as the agent's shell would run it.

const FIXTURES = HOOK_PAYLOADS;
const payload = (name: string, command?: string): string => {
  const p = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as { tool_input: Record<string, unknown> };
  if (command !== undefined) p.tool_input = { ...p.tool_input, command };
  return JSON.stringify(p);
};
const CASES = [
  { agent: 'claude-code', fixture: 'claude-code.PreToolUse.Bash', field: (o: any) => o.hookSpecificOutput.updatedInput },
  { agent: 'codex', fixture: 'codex.PreToolUse.Bash', field: (o: any) => o.hookSpecificOutput.updatedInput },
  { agent: 'gemini', fixture: 'gemini-cli.BeforeTool.run_shell_command', field: (o: any) => o.hookSpecificOutput.tool_input },
] as const;

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox('cordon-guard-');
  linkPluginRoots(
    sandbox.dataDir,
    ['cgroup-linux', 'claude-code', 'codex', 'gemini'].map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name) })),
  );
});
afterAll(() => sandbox.cleanup());

const hook = (agent: string, input: string) => runCordon(['hook', '--agent', agent], { env: sandbox.env, input });
const cordonPrefix = `${shellQuote(process.execPath)} ${shellQuote(join(REPO_ROOT, 'packages/host/bin/run.cjs'))}`;

describe('cordon control guard', () => {
  it('leaves calls alone until switched on, and writes nothing without --write', async () => {
    expect((await hook('claude-code', payload('claude-code.PreToolUse.Bash'))).stdout).toBe('');
    const dry = await runCordon(['control', 'guard', '--agent', 'claude-code'], { env: sandbox.env });
    expect(dry.stdout).toMatch(/^would write .*control\.json: guarded agents claude-code \(dry run; add --write\)$/m);
    expect((await hook('claude-code', payload('claude-code.PreToolUse.Bash'))).stdout).toBe('');
    expect((await runCordon(['control', 'guard', '--agent', 'no-such-agent', '--write'], { env: sandbox.env })).exitCode).toBe(2);
  });

  it("rewrites each agent's shell call in its own field, and the rewritten command runs under control run", async () => {
    const w = await runCordon(['control', 'guard', '--agent', 'claude-code', '--agent', 'codex', '--agent', 'gemini', '--write'], { env: sandbox.env });
    expect(w.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(join(sandbox.configDir, 'control.json'), 'utf8'))).toEqual({ guard: { 'claude-code': true, codex: true, gemini: true } });
    for (const { agent, fixture, field } of CASES) {
      const r = await hook(agent, payload(fixture));
      expect(r.exitCode, agent).toBe(0);
      const input = field(JSON.parse(r.stdout));
      const session = JSON.parse(payload(fixture)).session_id as string;
      expect(input.command, agent).toBe(`${cordonPrefix} control run --session ${shellQuote(session)} -- bash -c 'echo hello-from-fake'`);
      if (agent === 'codex') expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
      const ran = await runProcess(['bash', '-c', input.command], { env: sandbox.env });
      expect(ran.stdout, agent).toBe('hello-from-fake\n');
      expect(ran.exitCode).toBe(0);
    }
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n');
    expect(runs.slice(-3).map((l) => JSON.parse(l).argv)).toEqual(Array(3).fill(['bash', '-c', 'echo hello-from-fake']));
  });

  it('passes the hint the command starts with, and does not wrap twice or touch other tools', async () => {
    const r = await hook('claude-code', payload('claude-code.PreToolUse.Bash', 'AGENT_RESOURCE_HINT=memory:low echo "$AGENT_RESOURCE_HINT"'));
    const command = JSON.parse(r.stdout).hookSpecificOutput.updatedInput.command as string;
    const session = JSON.parse(payload('claude-code.PreToolUse.Bash')).session_id as string;
    expect(command).toBe(`AGENT_RESOURCE_HINT=memory:low ${cordonPrefix} control run --session ${shellQuote(session)} -- bash -c 'AGENT_RESOURCE_HINT=memory:low echo "$AGENT_RESOURCE_HINT"'`);
    const ran = await runProcess(['bash', '-c', command], { env: sandbox.env });
    expect(ran.stdout).toBe('memory:low\n');
    const record = JSON.parse(readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    expect(record).toMatchObject({ tier: 'low', hint: 'memory:low' });
    expect((await hook('claude-code', payload('claude-code.PreToolUse.Bash', command))).stdout).toBe('');
    expect((await hook('claude-code', payload('claude-code.PreToolUse.Read'))).stdout).toBe('');
    const off = await runCordon(['control', 'guard', '--agent', 'claude-code', '--off', '--write'], { env: sandbox.env });
    expect(off.stdout).toMatch(/guarded agents codex, gemini$/m);
    expect((await hook('claude-code', payload('claude-code.PreToolUse.Bash'))).stdout).toBe('');
  });
});

describe('cordon reduce joins a guarded call with its control run', () => {
  it('keeps the agent\'s command in the marker and shows the run\'s tier, limit, peak and stall on the call', async () => {
    const own = makeSandbox('cordon-guard-reduce-');
    try {
      linkPluginRoots(own.dataDir, ['cgroup-linux', 'claude-code'].map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name) })));
      expect((await runCordon(['control', 'guard', '--agent', 'claude-code', '--write'], { env: own.env })).exitCode).toBe(0);
      const env = { ...own.env, CORDON_SAMPLER: 'off' };
      const pre = await runCordon(['hook', '--agent', 'claude-code'], { env, input: payload('claude-code.PreToolUse.Bash', 'echo guarded-call') });
      const command = JSON.parse(pre.stdout).hookSpecificOutput.updatedInput.command as string;
      const ran = await runProcess(['bash', '-c', command], { env });
      expect(ran.stdout).toBe('guarded-call\n');
      // A second, unguarded run of the same command outside the call's window must not join.
      const post = JSON.parse(payload('claude-code.PostToolUse.Bash', 'echo guarded-call')) as Record<string, unknown>;
      post.tool_input = JSON.parse(pre.stdout).hookSpecificOutput.updatedInput;
      expect((await runCordon(['hook', '--agent', 'claude-code'], { env, input: JSON.stringify(post) })).exitCode).toBe(0);
      await runProcess(['bash', '-c', command], { env });
      const session = JSON.parse(payload('claude-code.PreToolUse.Bash')).session_id as string;
      const lines = (await runCordon(['reduce', '--session', session, '--jsonl'], { env })).stdout.trim().split('\n');
      const calls = lines.map((l) => JSON.parse(l));
      expect(calls).toHaveLength(1);
      expect(calls[0].command).toBe('echo guarded-call');
      expect(calls[0].guard).toMatchObject({ tier: 'medium', final_tier: 'medium', exit_code: 0, warned: false });
      expect(typeof calls[0].guard.enforced).toBe('boolean');
      const text = (await runCordon(['reduce', '--session', session], { env })).stdout;
      expect(text).toMatch(/echo guarded-call \[guard medium /);
      const markers = readFileSync(join(own.dataDir, 'runs', session, 'markers.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(markers[0]).toMatchObject({ event: 'tool_start', command: 'echo guarded-call', decision: 'rewrite', decided_by: 'cgroup-linux' });
      expect(markers[0].rewritten_command).toContain('control run --session');
    } finally {
      own.cleanup();
    }
  });
});

describe('guard rewriting rules', () => {
  const call = (command: unknown, agent = 'claude-code', canonicalTool = 'shell') =>
    ({ agent, sessionId: 's', callKey: 'k', callKeySource: 'agent', toolName: 'Bash', canonicalTool, toolInput: { command, timeout: 5 }, command: String(command), nativeEvent: 'PreToolUse', raw: {} }) as const;
  const context = { cordon: ['/usr/bin/node', '/opt/cordon/bin/run.cjs'], agents: new Set(['claude-code']) };

  it('reads the hint forms a model writes', () => {
    expect(hintInCommand('AGENT_RESOURCE_HINT=memory:high npm test')).toBe('memory:high');
    expect(hintInCommand(`  export AGENT_RESOURCE_HINT='memory:low, cpu:low'; make`)).toBe('memory:low, cpu:low');
    expect(hintInCommand('AGENT_RESOURCE_HINT="max" pytest')).toBe('max');
    expect(hintInCommand('npm test AGENT_RESOURCE_HINT=memory:high')).toBeUndefined();
  });

  it('keeps other input fields and only guards shell calls of guarded agents', () => {
    expect(guardDecision(call('ls') as any, context)).toEqual({ kind: 'rewrite', toolInput: { command: "/usr/bin/node /opt/cordon/bin/run.cjs control run --session s -- bash -c ls", timeout: 5 }, reason: 'runs under cordon control run', by: 'cgroup-linux' });
    expect(guardDecision(call('ls', 'codex') as any, context)).toBeUndefined();
    expect(guardDecision(call('ls', 'claude-code', 'read') as any, context)).toBeUndefined();
    expect(guardDecision(call(['ls']) as any, context)).toBeUndefined();
    expect(guardDecision(call('  ') as any, context)).toBeUndefined();
  });

  it('quotes any command so the shell gives it back unchanged', async () => {
    const samples = fc.sample(fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\0')), 25);
    for (const s of samples) {
      const r = await runProcess(['sh', '-c', `printf %s ${shellQuote(s)}`]);
      expect(r.stdout).toBe(s);
    }
  });
});
