import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alreadyGuarded, guardDecision, guardedCommand, hintInCommand, makeStateDir, shellQuote } from '../../../plugins/cgroup-linux/src/guard/decision.js';
import { REPO_ROOT, linkPluginRoots, makeSandbox, runCordon, runProcess, type Sandbox } from '../../support/cli.js';
import { HOOK_PAYLOADS } from '../../support/fixtures.js';
import { tempDirForTest } from '../../support/temp.js';
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
const CORDON = [process.execPath, join(REPO_ROOT, 'packages/host/bin/run.cjs')];
const cordonPrefix = CORDON.map(shellQuote).join(' ');
/** What the guard makes of `command` in `session` (with the hint the command sets). */
/** What the guard makes of `command` in `session`, with its state directory as the hook chose it (read back from `actual`). */
const wrapped = (command: string, session: string, actual: string) => {
  const dir = /^\{ declare -f; alias -p; \} >'?([^' ]+)\/in'? /.exec(actual)?.[1] ?? '';
  return guardedCommand(command, { cordon: CORDON, agents: new Set() }, hintInCommand(command), session, dir);
};

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
      expect(input.command, agent).toBe(wrapped('echo hello-from-fake', session, input.command));
      expect(input.command, agent).toMatch(new RegExp(`^\\{ declare -f; alias -p; \\} >${join(sandbox.dataDir, 'guard', 'call-').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\w+/in `));
      expect(input.command, agent).toContain(`${cordonPrefix} control run --session ${shellQuote(session)} -- bash -c `);
      if (agent === 'codex') expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
      const ran = await runProcess(['bash', '-c', input.command], { env: sandbox.env });
      expect(ran.stdout, agent).toBe('hello-from-fake\n');
      expect(ran.exitCode).toBe(0);
    }
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n');
    expect(runs.slice(-3).map((l) => JSON.parse(l).argv.at(-1))).toEqual(Array(3).fill('echo hello-from-fake'));
  });

  it('passes the hint the command starts with, and does not wrap twice or touch other tools', async () => {
    const r = await hook('claude-code', payload('claude-code.PreToolUse.Bash', 'AGENT_RESOURCE_HINT=memory:low echo "$AGENT_RESOURCE_HINT"'));
    const command = JSON.parse(r.stdout).hookSpecificOutput.updatedInput.command as string;
    const session = JSON.parse(payload('claude-code.PreToolUse.Bash')).session_id as string;
    expect(command).toBe(wrapped('AGENT_RESOURCE_HINT=memory:low echo "$AGENT_RESOURCE_HINT"', session, command));
    expect(command).toContain(`AGENT_RESOURCE_HINT=memory:low ${cordonPrefix} control run --session ${shellQuote(session)} -- bash -c `);
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

// A hostile-input probe: `control run` recorded its argv whole (a 130 KB argument added MBs to
// cordon.log and runs.jsonl per call). The record now cuts each argument as markers cut the
// command (2,000 characters, after redaction); the call's marker and its run still join.
describe.each([
  { route: 'fast route', env: {} },
  { route: 'oclif route', env: { CORDON_NO_FAST_ROUTE: '1' } },
])('cordon reduce joins a guarded call longer than a marker keeps ($route)', ({ env: routeEnv }) => {
  it('the marker and the run record keep the same first 2,000 characters, the secret at the cut as ***, and the call gets its guard', async () => {
    const own = makeSandbox('cordon-guard-long-');
    try {
      linkPluginRoots(own.dataDir, ['cgroup-linux', 'claude-code'].map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name) })));
      expect((await runCordon(['control', 'guard', '--agent', 'claude-code', '--write'], { env: own.env })).exitCode).toBe(0);
      const env = { ...own.env, CORDON_SAMPLER: 'off', ...routeEnv };
      // Cut before redaction, the cut at 2,000 would fall inside the secret and keep `hun`.
      const long = `echo ${'x'.repeat(1985)} TOKEN=hunter2secretvalue; echo ${'y'.repeat(3000)} long-call-end`;
      const pre = await runCordon(['hook', '--agent', 'claude-code'], { env, input: payload('claude-code.PreToolUse.Bash', long) });
      const command = JSON.parse(pre.stdout).hookSpecificOutput.updatedInput.command as string;
      const ran = await runProcess(['bash', '-c', command], { env });
      expect(ran.stdout).toBe(`${'x'.repeat(1985)} TOKEN=hunter2secretvalue\n${'y'.repeat(3000)} long-call-end\n`);
      const post = JSON.parse(payload('claude-code.PostToolUse.Bash', long)) as Record<string, unknown>;
      post.tool_input = JSON.parse(pre.stdout).hookSpecificOutput.updatedInput;
      expect((await runCordon(['hook', '--agent', 'claude-code'], { env, input: JSON.stringify(post) })).exitCode).toBe(0);

      const shown = `echo ${'x'.repeat(1985)} TOKEN=***`;
      expect(shown).toHaveLength(2000);
      const runsText = readFileSync(join(own.dataDir, 'control/runs.jsonl'), 'utf8');
      const logText = readFileSync(join(own.dataDir, 'logs/cordon.log'), 'utf8');
      for (const text of [runsText, logText]) {
        expect(text).not.toContain('hunter2');
        expect(text).not.toContain('long-call-end');
      }
      const [record] = runsText.trim().split('\n').map((l) => JSON.parse(l));
      expect(record.argv).toHaveLength(6);
      expect(record.argv[5]).toBe(shown);
      expect(record.command.length).toBeLessThanOrEqual(2000);
      expect(runsText.length).toBeLessThan(6000);

      const session = JSON.parse(payload('claude-code.PreToolUse.Bash')).session_id as string;
      const calls = (await runCordon(['reduce', '--session', session, '--jsonl'], { env })).stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(calls).toHaveLength(1);
      expect(calls[0].command).toBe(shown);
      expect(calls[0].guard).toMatchObject({ tier: 'medium', exit_code: 0, warned: false });
    } finally {
      own.cleanup();
    }
  });
});

describe('guard rewriting rules', () => {
  const call = (command: unknown, agent = 'claude-code', canonicalTool = 'shell') =>
    ({ agent, sessionId: 's', callKey: 'k', callKeySource: 'agent', toolName: 'Bash', canonicalTool, toolInput: { command, timeout: 5 }, command: String(command), nativeEvent: 'PreToolUse', raw: {} }) as const;
  // Made inside the test that uses it, so the test's own cleanup removes what guardDecision writes there.
  const makeContext = () => ({ cordon: ['/usr/bin/node', '/opt/cordon/bin/run.cjs'], agents: new Set(['claude-code']), stateRoot: join(tempDirForTest('cordon-guard-rules-'), 'guard') });

  it('reads the hint forms a model writes', () => {
    expect(hintInCommand('AGENT_RESOURCE_HINT=memory:high npm test')).toBe('memory:high');
    expect(hintInCommand(`  export AGENT_RESOURCE_HINT='memory:low, cpu:low'; make`)).toBe('memory:low, cpu:low');
    expect(hintInCommand('AGENT_RESOURCE_HINT="max" pytest')).toBe('max');
    expect(hintInCommand('npm test AGENT_RESOURCE_HINT=memory:high')).toBeUndefined();
  });

  it('keeps other input fields and only guards shell calls of guarded agents', () => {
    const context = makeContext();
    const decision = guardDecision(call('ls') as any, context) as unknown as { toolInput: { command: string } };
    const dir = join(context.stateRoot, readdirSync(context.stateRoot)[0]!);
    expect(decision).toEqual({ kind: 'rewrite', toolInput: { command: guardedCommand('ls', context, undefined, 's', dir), timeout: 5 }, reason: 'runs under cordon control run', by: 'cgroup-linux' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(decision.toolInput.command).toContain("/usr/bin/node /opt/cordon/bin/run.cjs control run --session s -- bash -c '");
    // Nothing the agents' own command checks refuse: no command substitution, no rm.
    expect(decision.toolInput.command).not.toMatch(/\$\(|`|\brm\b|\brmdir\b/);
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

describe('a guarded call means what the unguarded one meant', () => {
  const context = { cordon: CORDON, agents: new Set(['claude-code', 'codex', 'gemini']), get stateRoot() { return join(sandbox.dataDir, 'guard'); } };
  const call = (command: string, agent = 'claude-code') =>
    ({ agent, sessionId: 'sess-28', callKey: 'k', callKeySource: 'agent', toolName: 'Bash', canonicalTool: 'shell', toolInput: { command }, command, nativeEvent: 'PreToolUse', raw: {} }) as const;
  const rewrite = (command: string, agent?: string) => (guardDecision(call(command, agent) as any, context) as unknown as { toolInput: { command: string } }).toolInput.command;

  /**
   * Runs `commands` one after another in one bash, as Claude Code runs its Bash calls: in a shell
   * whose functions and aliases come from a snapshot, each call evaluated in it, the working
   * directory read after each (its docs: "the working directory persists across commands").
   * Prints `<status> <pwd>` after each call.
   */
  const agentShell = (cwd: string, commands: string[]) => {
    const steps = commands.map((c) => `eval ${shellQuote(c)}; echo "status=$? pwd=$(pwd -P)"`).join('\n');
    const snapshot = `greet() { echo "hello from a function, $1"; }\nalias ll='echo alias-ran'\nshopt -s expand_aliases\n`;
    return runProcess(['bash', '-c', `cd ${shellQuote(cwd)}\n${snapshot}${steps}`], { env: sandbox.env });
  };

  it('a cd persists into the next call; statuses, failures and exit inside the command end as they do unguarded', async () => {
    const project = tempDirForTest('cordon-guard-cwd-');
    mkdirSync(join(project, 'sub', 'deeper', 'deepest'), { recursive: true });
    const real = realpathSync(project);
    const sequences = [
      ['cd sub', 'pwd', 'cd deeper && false', 'pwd', 'cd deepest; exit 3', 'pwd'],
      ['cd sub/deeper && ls', 'cd .. && pwd', 'set -e; false; echo not-reached', 'pwd'],
      ['cd nowhere', 'pwd', 'exit', 'pwd'],
    ];
    for (const steps of sequences) {
      const guarded = await agentShell(project, steps.map((c) => rewrite(c)));
      const plain = await agentShell(project, steps);
      expect(guarded.stdout, steps.join(' / ')).toBe(plain.stdout);
      expect(guarded.exitCode, steps.join(' / ')).toBe(plain.exitCode);
    }
    const first = await agentShell(project, sequences[0]!.map((c) => rewrite(c)));
    expect(first.stdout.split('\n').filter(Boolean)).toEqual([`status=0 pwd=${real}/sub`, `${real}/sub`, `status=0 pwd=${real}/sub`, `status=1 pwd=${real}/sub/deeper`, `${real}/sub/deeper`, `status=0 pwd=${real}/sub/deeper`]);
    expect(first.exitCode).toBe(3);
  });

  it("the agent shell's functions and aliases work in the guarded command", async () => {
    const r = await agentShell(tempDirForTest('cordon-guard-fn-'), [rewrite('greet guarded'), rewrite('ll')]);
    expect(r.stdout).toContain('hello from a function, guarded\n');
    expect(r.stdout).toContain('alias-ran\n');
  });

  it('a virtualenv activated in a call holds for that call; exported variables do not persist, as unguarded in Claude Code', async () => {
    const project = tempDirForTest('cordon-guard-venv-');
    mkdirSync(join(project, 'venv', 'bin'), { recursive: true });
    writeFileSync(join(project, 'venv/bin/activate'), `export VIRTUAL_ENV=${shellQuote(join(project, 'venv'))}\nexport PATH="$VIRTUAL_ENV/bin:$PATH"\n`);
    writeFileSync(join(project, 'venv/bin/python-in-venv'), '#!/bin/sh\necho venv-python\n', { mode: 0o755 });
    const r = await agentShell(project, [rewrite('source venv/bin/activate && python-in-venv && echo "$VIRTUAL_ENV"'), rewrite('export FOO=bar'), rewrite('echo "foo=${FOO:-unset}"')]);
    expect(r.stdout).toContain('venv-python\n');
    expect(r.stdout).toContain(`${join(project, 'venv')}\n`);
    expect(r.stdout).toContain('foo=unset\n');
  });

  it('decides by structure whether a command already runs under control run', () => {
    const prefix = cordonPrefix;
    // Not wrapped again: one simple command naming cordon control run, or the guard's own rewrite.
    for (const command of [`${prefix} control run -- ls`, `AGENT_RESOURCE_HINT=memory:low ${prefix} control run --hint memory:low -- pytest -x`, `cordon control run -- make`, rewrite('npm test'), rewrite('AGENT_RESOURCE_HINT=memory:high make -j8')]) {
      expect(alreadyGuarded(command, context), command).toBe(true);
      expect(guardDecision(call(command) as any, context), command).toBeUndefined();
    }
    // Wrapped: the text is there, but something runs outside control run.
    for (const command of [
      `echo '${prefix} control run -- x' && npm test`,
      `true; ${prefix} control run -- ls`,
      `${prefix} control run -- ls && make -j8`,
      `${prefix} control run -- echo $(make -j8)`,
      `${prefix} control run -- echo "\`make\`"`,
      `${prefix} control run -- ls > out.txt`,
      `${prefix} control run -- ls | sort`,
      `echo ${prefix} control run -- ls`,
      `${rewrite('ls')}; make`,
      `${prefix} control run -- sh -c 'unterminated`,
      // A comment ends at its line's end: `make` runs after the guarded command.
      `${prefix} control run -- ls # note\nmake -j8`,
    ]) {
      expect(alreadyGuarded(command, context), command).toBe(false);
      expect(rewrite(command), command).toContain(shellQuote(command));
    }
  });

  it('wraps the same way for every agent, each call being its own process where the agent does not keep a shell (Codex, Gemini CLI)', async () => {
    const dir = tempDirForTest('cordon-guard-codex-');
    mkdirSync(join(dir, 'sub'));
    for (const agent of ['codex', 'gemini']) {
      // Codex runs `bash -lc <command>` per call, Gemini CLI `bash -c <command>`: nothing carries over, guarded or not.
      const r = await runProcess(['bash', '-c', rewrite('cd sub && pwd && greet x 2>/dev/null; echo done', agent)], { env: sandbox.env, cwd: dir });
      expect(r.stdout).toBe(`${realpathSync(dir)}/sub\ndone\n`);
    }
  });
});

describe('switching the guard on', () => {
  it('honours a guard written into control.json by hand while the plugin index exists', async () => {
    const own = makeSandbox('cordon-guard-index-');
    try {
      linkPluginRoots(own.dataDir, ['cgroup-linux', 'claude-code'].map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name) })));
      const env = { ...own.env, CORDON_SAMPLER: 'off' };
      // A first hook builds the plugin index while nothing is guarded.
      expect((await runCordon(['hook', '--agent', 'claude-code'], { env, input: payload('claude-code.PreToolUse.Bash') })).stdout).toBe('');
      expect(existsSync(join(own.cacheDir, 'plugin-index.json'))).toBe(true);
      mkdirSync(own.configDir, { recursive: true });
      writeFileSync(join(own.configDir, 'control.json'), JSON.stringify({ guard: { 'claude-code': true } }));
      const r = await runCordon(['hook', '--agent', 'claude-code'], { env, input: payload('claude-code.PreToolUse.Bash') });
      expect(JSON.parse(r.stdout).hookSpecificOutput.updatedInput.command).toContain('control run --session');
      // And switched off by hand again.
      writeFileSync(join(own.configDir, 'control.json'), JSON.stringify({ guard: {} }));
      expect((await runCordon(['hook', '--agent', 'claude-code'], { env, input: payload('claude-code.PreToolUse.Bash') })).stdout).toBe('');
    } finally {
      own.cleanup();
    }
  });

  it('says so at --write when control probe finds nothing that can enforce', async () => {
    const own = makeSandbox('cordon-guard-probe-');
    try {
      linkPluginRoots(own.dataDir, ['cgroup-linux', 'claude-code'].map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name) })));
      const probe = JSON.parse((await runCordon(['control', 'probe', '--json'], { env: own.env })).stdout) as { available: boolean; reason: string | null };
      expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env: own.env })).exitCode).toBe(0);
      const w = await runCordon(['control', 'guard', '--agent', 'claude-code', '--write', '--json'], { env: own.env });
      expect(w.exitCode).toBe(0);
      expect(JSON.parse(w.stdout)).toMatchObject({ guarded: ['claude-code'], written: true, enforceable: probe.available, reason: probe.reason, unhooked: [] });
      if (probe.available) expect(w.stderr).toBe('');
      else expect(w.stderr).toContain(`nothing can be enforced on this machine (${probe.reason}): guarded calls will run unguarded`);
      // Switching every agent off says nothing about enforcement.
      const off = await runCordon(['control', 'guard', '--agent', 'claude-code', '--off', '--write'], { env: own.env });
      expect(off.stderr).toBe('');
    } finally {
      own.cleanup();
    }
  });
});

describe("an agent whose hooks are not installed (the help: \"Install the agent's hooks first\")", () => {
  it('guard says so on stderr, naming the install, and still writes the setting; said no more once they are installed', async () => {
    const own = makeSandbox('cordon-guard-unhooked-');
    try {
      linkPluginRoots(own.dataDir, ['cgroup-linux', 'claude-code', 'gemini'].map((name) => ({ name: `@cordon/${name}`, root: join(REPO_ROOT, 'plugins', name) })));
      const cwd = own.dir('work');
      const guard = (...args: string[]) => runCordon(['control', 'guard', ...args], { env: own.env, cwd });
      const warning = (agent: string) => `cordon control guard: ${agent}'s hooks are not installed (neither in its user config nor in this project's), so its shell calls are not guarded until they are: \`cordon install-hooks --agent ${agent} --write\`\n`;
      const none = await guard('--agent', 'claude-code', '--agent', 'gemini', '--write', '--json');
      expect(none.exitCode).toBe(0);
      expect(JSON.parse(none.stdout)).toMatchObject({ guarded: ['claude-code', 'gemini'], written: true, unhooked: ['claude-code', 'gemini'] });
      expect(none.stderr).toContain(warning('claude-code') + warning('gemini'));
      // Installed (at user scope, or in this project): nothing to say of it.
      expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env: own.env, cwd })).exitCode).toBe(0);
      expect((await runCordon(['install-hooks', '--agent', 'gemini', '--scope', 'project', '--write'], { env: own.env, cwd })).exitCode).toBe(0);
      const both = await guard('--agent', 'claude-code', '--agent', 'gemini', '--write');
      expect(both.stderr).not.toContain('hooks are not installed');
      // Removed again with uninstall-hooks: said again; switching the guard off says nothing.
      expect((await runCordon(['uninstall-hooks', '--agent', 'claude-code', '--write'], { env: own.env, cwd })).exitCode).toBe(0);
      const after = await guard('--agent', 'claude-code', '--write');
      expect(after.stderr).toContain(warning('claude-code'));
      expect((await guard('--agent', 'claude-code', '--off', '--write')).stderr).not.toContain('hooks are not installed');
    } finally {
      own.cleanup();
    }
  });
});

describe('guard state directories', () => {
  it('are private, one per call, and the ones older than an hour are removed', () => {
    const root = join(tempDirForTest('cordon-guard-state-'), 'guard');
    const old = makeStateDir(root);
    const hourAgo = (Date.now() - 2 * 3_600_000) / 1000;
    utimesSync(old, hourAgo, hourAgo);
    const recent = makeStateDir(root);
    const fresh = makeStateDir(root);
    expect(fresh).not.toBe(recent);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
  });
});
