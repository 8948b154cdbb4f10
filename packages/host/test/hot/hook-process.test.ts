import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, runCordon, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { runHook } from '../../src/hot/main.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { AGENT_PLUGINS, FIXTURES, hookLog, hookViaShell as runHookViaShell, hookViaSocket, PATIENT_HOOK_ENV, runNode, tapPlugin } from './support.js';

// The hook as agents run it: the built `cordon hook` process. Whatever arrives on stdin, it exits
// 0 with nothing on stdout (unless a plugin decided), logs what went wrong, and finishes in
// bounded time, even when stdin never closes.

const AGENTS = ['claude-code', 'codex', 'gemini', 'cursor', 'hermes'] as const;
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

let sandbox: Sandbox;

function plugin(name: string, body: string): { name: string; root: string } {
  return tapPlugin(sandbox.dir(`plugin-${name}`), name, body);
}

function link(...extra: Array<{ name: string; root: string }>): void {
  linkPluginRoots(sandbox.dataDir, [...AGENT_PLUGINS, ...extra]);
}

const logLines = (): Array<Record<string, unknown>> => hookLog(sandbox.dataDir);

/** Runs the built hook with `input` on stdin; `undefined` leaves stdin open (never closed). */
function hook(args: string[], input: string | Buffer | undefined, env: NodeJS.ProcessEnv = sandbox.env): Promise<RunResult & { ms: number }> {
  return hookViaSocket(args, input, input === undefined, env);
}

function expectSilent(r: RunResult): void {
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe('');
}

beforeEach(() => {
  sandbox = makeSandbox('cordon-hook-process-');
  // These hooks have no real agent above them: no session sampler for the test runner.
  sandbox.env.CORDON_SAMPLER = 'off';
  // Every run here is asserted on: no bound may fire because the machine is busy (tests of the
  // bounds set their own).
  Object.assign(sandbox.env, PATIENT_HOOK_ENV);
  link();
});
afterEach(() => sandbox.cleanup());

function hookViaShell(args: string[], stdin: string, env: NodeJS.ProcessEnv = sandbox.env): Promise<RunResult & { ms: number }> {
  return runHookViaShell(args, stdin, env);
}

describe('cordon hook process: every kind of stdin agents hand over', () => {
  const name = 'codex.PreToolUse.Bash.json';
  const markersOf = (payload: { session_id: string }) => readMarkers(join(sessionDir(sandbox.dataDir, payload.session_id), 'markers.jsonl')).markers;

  it.each([
    ['a socket (Node-based agents: libuv stdio is a socketpair)', 'socket'],
    ['a pipe (Codex, Hermes; `cat payload | cordon hook`)', 'pipe'],
    ['a pipe written late, after the hook started', 'late-pipe'],
    ['a regular file (`< payload.json`)', 'file'],
  ])('%s: the payload is read and recorded', async (_label, kind) => {
    const text = fixture(name);
    const file = join(sandbox.dir('stdin'), 'payload.json');
    writeFileSync(file, text);
    const r =
      kind === 'socket'
        ? await hook(['--agent', 'codex'], text)
        : await hookViaShell(['--agent', 'codex'], kind === 'pipe' ? `< <(cat '${file}')` : kind === 'late-pipe' ? `< <(sleep 0.3; cat '${file}')` : `< '${file}'`);
    expectSilent(r);
    const markers = markersOf(JSON.parse(text));
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ event: 'tool_start', agent: 'codex', native_event: 'PreToolUse' });
  });

  it('/dev/null: read as empty, logged, exit 0', async () => {
    expectSilent(await hookViaShell(['--agent', 'codex'], '< /dev/null'));
    expect(logLines().some((l) => l.message === 'hook payload unusable' && l.problem === 'empty')).toBe(true);
  });

  it('a pipe that never closes: gives up after CORDON_HOOK_STDIN_TIMEOUT_MS and exits 0', async () => {
    // The writer keeps the pipe open until the hook has logged its time-out (at most two minutes):
    // a hook that waited for the end of input instead would be killed after a minute (a signal,
    // no exit 0), or, after the writer's cap, log an empty payload, not a time-out. Its stderr is
    // not the test's, so only the hook is awaited.
    const log = join(sandbox.dataDir, 'logs', 'cordon.log');
    const writer = `< <(i=0; until grep -qs '"problem":"timeout"' '${log}' || [ $i -ge 2400 ]; do sleep 0.05; i=$((i+1)); done)`;
    const r = await hookViaShell(['--agent', 'codex'], writer, { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: '400' });
    expectSilent(r);
    expect(logLines().some((l) => l.problem === 'timeout')).toBe(true);
  });

  it('a pipe carrying more than CORDON_HOOK_MAX_STDIN_BYTES: drained, dropped, logged', async () => {
    const r = await hookViaShell(['--agent', 'codex'], `< <(head -c 5000000 /dev/zero)`, { ...sandbox.env, CORDON_HOOK_MAX_STDIN_BYTES: '1000' });
    expectSilent(r);
    expect(logLines().some((l) => l.problem === 'too-large' && l.bytes === 5_000_000)).toBe(true);
  });
});

describe('cordon hook process: what it loads beyond Node itself', () => {
  // Every module Node loads is listed in process.moduleLoadList; a preloaded probe writes it at
  // exit. Beyond what an empty script loads, the hook may load only `vm` (its code cache): not
  // the socket and stream modules behind process.stdin, nor node:module, node:os or crypto.
  async function loaded(run: (env: NodeJS.ProcessEnv) => Promise<RunResult>): Promise<string[]> {
    const dir = sandbox.dir('module-probe');
    const out = join(dir, `modules-${Math.random().toString(36).slice(2)}.txt`);
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    const r = await run({ ...sandbox.env, NODE_OPTIONS: `--require ${probe}` });
    expectSilent(r);
    return readFileSync(out, 'utf8').split('\n');
  }
  const baseline = async (): Promise<Set<string>> => {
    const empty = join(sandbox.dir('module-probe'), 'empty.js');
    writeFileSync(empty, '');
    return new Set(await loaded((env) => runNode([empty], env)));
  };

  it.each([
    ['a socket (Claude Code, Gemini CLI)', 'socket'],
    ['a pipe (Codex, Hermes)', 'pipe'],
    ['a pipe written late (the hook polls it empty first)', 'late-pipe'],
  ])('stdin %s: only vm beyond an empty script, and the payload is recorded', async (_label, kind) => {
    const before = await baseline();
    const text = fixture('claude-code.PreToolUse.Bash.json');
    const file = join(sandbox.dir('stdin'), 'payload.json');
    writeFileSync(file, text);
    // (The late writer's 0.3 s only makes an empty first read likely; the result holds either way.)
    const stdin = kind === 'late-pipe' ? `< <(sleep 0.3; cat '${file}')` : `< <(cat '${file}')`;
    const run = (env: NodeJS.ProcessEnv): Promise<RunResult> => (kind === 'socket' ? hookViaSocket(['--agent', 'claude-code'], text, false, env) : runHookViaShell(['--agent', 'claude-code'], stdin, env));
    // The first call loads every plugin and writes the plugin index and the code caches (the
    // index's temp name and the Codex plugin use crypto: 36 modules), as a user's first tool call
    // does; every later call is what is measured. So the first call must have done all of it,
    // which the patient bounds (sandbox.env) let it do on a loaded machine, and which is checked.
    expectSilent(await run(sandbox.env));
    const session = JSON.parse(text).session_id;
    expect(readMarkers(join(sessionDir(sandbox.dataDir, session), 'markers.jsonl')).markers, 'the first call recorded its payload').toHaveLength(1);
    expect(existsSync(join(sandbox.cacheDir, 'plugin-index.json')), 'the first call wrote the plugin index').toBe(true);
    const modules = await loaded(run);
    // Node's pipe handle itself is a binding, not a module: the socket reader takes it directly.
    const bindings = kind === 'socket' ? ['Internal Binding pipe_wrap', 'Internal Binding stream_wrap'] : [];
    expect(modules.filter((m) => !before.has(m) && !bindings.includes(m))).toEqual(['NativeModule vm']);
    expect(readMarkers(join(sessionDir(sandbox.dataDir, session), 'markers.jsonl')).markers).toHaveLength(2);
  });

  it('stdin a socket under --pending-deprecation: still silent (the pipe handle is taken quietly)', async () => {
    const text = fixture('claude-code.PreToolUse.Bash.json');
    const r = await hookViaSocket(['--agent', 'claude-code'], text, false, { ...sandbox.env, NODE_OPTIONS: '--pending-deprecation' });
    expectSilent(r);
    expect(readMarkers(join(sessionDir(sandbox.dataDir, JSON.parse(text).session_id), 'markers.jsonl')).markers).toHaveLength(1);
  });
});

describe('cordon hook process: bad input never breaks the agent', () => {
  it.each([
    ['empty stdin', '', 'empty'],
    ['whitespace', ' \n\t', 'empty'],
    ['not JSON', 'hello, agent', 'not-json'],
    ['a JSON array', '[1,2,3]', 'not-object'],
    ['a JSON string', '"PreToolUse"', 'not-object'],
    ['truncated JSON', fixture('claude-code.PreToolUse.Bash.json').slice(0, 57), 'not-json'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), 'not-json'],
  ])('%s: exit 0, nothing printed, the problem logged', async (_name, input, problem) => {
    const r = await hook(['--agent', 'claude-code'], input);
    expectSilent(r);
    expect(logLines().some((l) => l.message === 'hook payload unusable' && l.problem === problem)).toBe(true);
  });

  // Found by a hostile-input probe: V8's parse error quotes up to ten characters of the input,
  // too few for redaction to recognise a token, so the log kept the start of a secret.
  it('a payload that is a bare secret: the log says what is wrong without quoting any of it', async () => {
    const secret = 'ghp_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD';
    for (const input of [secret, `{"token": ${secret}}`, 'ghp_DD']) {
      expectSilent(await hook(['--agent', 'claude-code'], input));
    }
    const lines = logLines().filter((l) => l.message === 'hook payload unusable');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.problem).toBe('not-json');
      expect(JSON.stringify(line)).not.toMatch(/ghp_|DDD/);
      expect(line.detail).toMatch(/\(the input is not quoted\); not valid JSON$/);
    }
  });

  it('an oversized payload holding an unquoted secret: the log quotes none of it', async () => {
    // Over CORDON_HOOK_MAX_STDIN_BYTES the payload is reduced as it streams; a bad literal's
    // error was V8's, with the first ten characters of the literal.
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const input = `{"session_id": "s", "tool_input": {"token": ${secret}}, "pad": "${'x'.repeat(200)}"}`;
    expectSilent(await hook(['--agent', 'claude-code'], input, { ...sandbox.env, CORDON_HOOK_MAX_STDIN_BYTES: '64' }));
    const line = logLines().find((l) => l.message === 'hook payload unusable' && l.problem === 'too-large');
    expect(line?.detail).toBe('not a JSON object: a JSON number or literal in the payload is malformed');
    expect(JSON.stringify(logLines())).not.toMatch(/sk-proj|abcdef/);
  });

  it('stdin that never closes: gives up after CORDON_HOOK_STDIN_TIMEOUT_MS and exits 0', async () => {
    // Stdin stays open until the hook ends (or is killed after a minute: a signal, no exit 0).
    const r = await hook(['--agent', 'codex'], undefined, { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: '400' });
    expectSilent(r);
    expect(logLines().some((l) => l.problem === 'timeout')).toBe(true);
  });

  it('a 20 MB payload is parsed, recorded and cut to the 2,000-character summary', async () => {
    const payload = JSON.parse(fixture('claude-code.PreToolUse.Bash.json'));
    payload.tool_input.command = `echo ${'y'.repeat(20 * 1024 * 1024)}`;
    const r = await hook(['--agent', 'claude-code'], JSON.stringify(payload));
    expectSilent(r);
    const { markers } = readMarkers(join(sessionDir(sandbox.dataDir, payload.session_id), 'markers.jsonl'));
    expect(markers).toHaveLength(1);
    expect(markers[0]!.command).toHaveLength(2000);
  });

  it('an 8 MB Write of a CSV file (a `\\n` every 5 bytes, no quote) over a socket is read well within the stdin bound and recorded', async () => {
    // Claude Code hands its hooks a socket. Before, the reader searched for the string's closing
    // quote again after every escape, through a plain Uint8Array's indexOf: 600 KB of such text
    // took 3.5 s, this payload about a minute, so the stdin bound gave up and nothing was recorded
    // (now under a second).
    const payload = JSON.parse(fixture('claude-code.PreToolUse.Write.json'));
    payload.tool_input.content = '1,2\n'.repeat(2 * 1024 * 1024);
    const r = await hook(['--agent', 'claude-code'], JSON.stringify(payload), { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: '15000' });
    expectSilent(r);
    expect(logLines().filter((l) => l.problem !== undefined)).toEqual([]);
    const { markers } = readMarkers(join(sessionDir(sandbox.dataDir, payload.session_id), 'markers.jsonl'));
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ event: 'tool_start', tool_name: 'Write' });
  });

  it('20 MB of random bytes, and such input over CORDON_HOOK_MAX_STDIN_BYTES, are drained and dropped', async () => {
    const noise = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < noise.length; i += 4096) noise[i] = (i * 31) & 0xff;
    expectSilent(await hook(['--agent', 'gemini'], noise));
    expect(logLines().some((l) => l.problem === 'not-json')).toBe(true);
    expectSilent(await hook(['--agent', 'gemini'], noise, { ...sandbox.env, CORDON_HOOK_MAX_STDIN_BYTES: '64' }));
    expect(logLines().some((l) => l.problem === 'too-large' && l.bytes === noise.length)).toBe(true);
  });

  it('a payload over CORDON_HOOK_MAX_STDIN_BYTES is still recorded, from its reduced form, with payload_bytes', async () => {
    const text = fixture('gemini-cli.BeforeTool.read_file.json');
    const payload = JSON.parse(text);
    expectSilent(await hook(['--agent', 'gemini'], text, { ...sandbox.env, CORDON_HOOK_MAX_STDIN_BYTES: '64' }));
    const { markers } = readMarkers(join(sessionDir(sandbox.dataDir, payload.session_id), 'markers.jsonl'));
    expect(markers).toHaveLength(1);
    // The payload's bytes are its document's: the fixture's final newline is not one of them (stdin.ts).
    const documentBytes = Buffer.byteLength(text.trimEnd());
    expect(markers[0]).toMatchObject({ event: 'tool_start', tool_name: payload.tool_name, payload_bytes: documentBytes });
    // From a regular file, and with a plugin tapping the hot hooks (the bus thread): the same.
    const file = join(sandbox.dir('stdin'), 'payload.json');
    writeFileSync(file, text);
    expectSilent(await hookViaShell(['--agent', 'gemini'], `< '${file}'`, { ...sandbox.env, CORDON_HOOK_MAX_STDIN_BYTES: '64' }));
    link(plugin('watcher', 'async () => undefined'));
    expectSilent(await hook(['--agent', 'gemini'], text, { ...sandbox.env, CORDON_HOOK_MAX_STDIN_BYTES: '64' }));
    const all = readMarkers(join(sessionDir(sandbox.dataDir, payload.session_id), 'markers.jsonl')).markers;
    expect(all.map((m) => m.payload_bytes)).toEqual([documentBytes, documentBytes, documentBytes]);
  });

  it('an unknown --agent, or a payload no dialect recognises, is logged and ignored', async () => {
    expectSilent(await hook(['--agent', 'aider-2000'], fixture('claude-code.PreToolUse.Bash.json')));
    expectSilent(await hook([], JSON.stringify({ hook_event_name: 'SomethingElse', session_id: 's' })));
    expect(logLines().filter((l) => l.message === 'hook payload skipped')).toHaveLength(2);
    expect(existsSync(join(sandbox.dataDir, 'runs'))).toBe(false);
    // Named as install-hooks names an agent it does not know: by agent, with the one meant.
    expectSilent(await hook(['--agent', 'claud-code'], fixture('claude-code.PreToolUse.Bash.json')));
    expect(logLines().filter((l) => l.message === 'hook payload skipped').map((l) => l.reason)).toEqual([
      expect.stringMatching(/^no installed agent named "aider-2000" takes hooks \(those that do: claude-code, codex, cursor, gemini, hermes\); /),
      'no registered dialect recognises the payload; pass --agent <name>',
      'no installed agent named "claud-code" takes hooks (those that do: claude-code, codex, cursor, gemini, hermes); did you mean "claude-code"?',
    ]);
  });

  it('an --agent named as a member of every object (__proto__, constructor, toString) is an unknown agent too, in the hook and in the commands', async () => {
    // Before: the install hint looked the name up in the first-party table by indexing it, found
    // Object.prototype's member, and built a path from it: a TypeError, logged as 'hook failed'
    // (and `install-hooks --agent __proto__` or `run --agent constructor` failed with it).
    const names = ['__proto__', 'constructor', 'toString'];
    for (const name of names) expectSilent(await hook(['--agent', name], fixture('claude-code.PreToolUse.Bash.json')));
    expect(logLines().map((l) => l.message)).toEqual(names.map(() => 'hook payload skipped'));
    expect(logLines().map((l) => l.reason)).toEqual(names.map((name) => expect.stringMatching(new RegExp(`^no installed agent named "${name}" takes hooks \\(those that do: claude-code, codex, cursor, gemini, hermes\\); install the plugin`))));
    expect(existsSync(join(sandbox.dataDir, 'runs'))).toBe(false);
    const install = await runCordon(['install-hooks', '--agent', '__proto__', '--json'], { env: sandbox.env });
    expect(install.exitCode).toBe(2);
    expect(JSON.parse(install.stdout).error).toMatchObject({ code: 'CORDON_REGISTRY_MISSING' });
  });

  it('a plugin tap that throws or hangs: logged, the call proceeds undecided', async () => {
    link(plugin('thrower', 'async () => { throw new Error("tap exploded"); }'));
    const r = await hook(['--agent', 'claude-code'], fixture('claude-code.PreToolUse.Bash.json'));
    expectSilent(r);
    expect(logLines().some((l) => l.message === 'beforeToolCall tap failed; the call proceeds' && String(l.error).includes('tap exploded'))).toBe(true);
    // A tap that keeps its thread busy with a timer and never settles: the time bound stops it.
    link(plugin('hanger', 'async () => new Promise(() => { setInterval(() => {}, 100); })'));
    const h = await hook(['--agent', 'claude-code'], fixture('claude-code.PreToolUse.Bash.json'), { ...sandbox.env, CORDON_HOOK_TIMEOUT_MS: '500' });
    expectSilent(h);
    expect(logLines().some((l) => String(l.message).startsWith('hook gave up'))).toBe(true);
  });

  it('a data dir that cannot be written (markers and log both fail): still exit 0, nothing printed', async () => {
    const blocked = join(sandbox.root, 'not-a-dir');
    writeFileSync(blocked, 'a file where the data dir should be');
    const r = await hook(['--agent', 'claude-code'], fixture('claude-code.PreToolUse.Bash.json'), { ...sandbox.env, CORDON_DATA_DIR: blocked });
    expectSilent(r);
  });

  it('CORDON_DISABLE=1 is a no-op: no decision, no marker, no log', async () => {
    link(plugin('denier', 'async () => ({ kind: "deny", reason: "no" })'));
    const r = await hook(['--agent', 'claude-code'], fixture('claude-code.PreToolUse.Bash.json'), { ...sandbox.env, CORDON_DISABLE: '1' });
    expectSilent(r);
    expect(existsSync(join(sandbox.dataDir, 'runs'))).toBe(false);
    expect(existsSync(join(sandbox.dataDir, 'logs'))).toBe(false);
  });
});

describe('cordon hook process: decisions in each agent\'s own format', () => {
  const deny = 'async (call) => call.command.includes("BLOCKME") ? { kind: "deny", reason: "not today" } : undefined';
  it.each([
    ['claude-code', 'claude-code.PreToolUse.Bash-blocked-by-hook.json', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not today' } }],
    ['codex', 'codex.PreToolUse.Bash-blocked-by-hook.json', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not today' } }],
    ['gemini', 'gemini-cli.BeforeTool.run_shell_command-blocked-by-hook.json', { decision: 'deny', reason: 'not today' }],
  ])('%s: exit 0 with the deny on stdout, one tool_denied marker', async (agent, file, expected) => {
    link(plugin('denier', deny));
    for (const args of [['--agent', agent], []]) {
      const r = await hook(args, fixture(file));
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual(expected);
    }
    const session = JSON.parse(fixture(file)).session_id;
    expect(readMarkers(join(sessionDir(sandbox.dataDir, session), 'markers.jsonl')).markers.map((m) => m.event)).toEqual(['tool_denied', 'tool_denied']);
  });

  it('the oclif `hook` command (CORDON_HOOK_VIA_OCLIF=1) runs the same code and prints the same decision', async () => {
    link(plugin('denier', deny));
    const r = await hook(['--agent', 'claude-code'], fixture('claude-code.PreToolUse.Bash-blocked-by-hook.json'), { ...sandbox.env, CORDON_HOOK_VIA_OCLIF: '1' });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const quiet = await hook(['--agent', 'claude-code', '--unknown-flag'], '', { ...sandbox.env, CORDON_HOOK_VIA_OCLIF: '1' });
    expectSilent(quiet);
    const help = await runCordon(['hook', '--help'], { env: sandbox.env });
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('--agent');
    expect(help.stdout).toContain('CORDON_DISABLE');
  });
});

describe('cordon hook (in process): fuzz', () => {
  const events = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'SessionStart', 'SessionEnd', 'Stop', 'BeforeTool', 'AfterTool', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'sessionStart', 'pre_tool_call', 'post_tool_call', 'on_session_finalize', 'on_session_end', 'Weird'];
  const texts = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && !f.startsWith('_'))
    .map((f) => readFileSync(join(FIXTURES, f), 'utf8'));
  const value = fc.jsonValue({ maxDepth: 3 });
  const payloads = fc.oneof(
    value.map((v) => Buffer.from(JSON.stringify(v) ?? '')),
    fc
      .record(
        { hook_event_name: fc.oneof(fc.constantFrom(...events), value), session_id: value, tool_name: value, tool_input: value, tool_use_id: value, tool_response: value, tool_output: value, error: value, extra: value, conversation_id: value, transcript_path: value, cwd: value, duration_ms: value },
        { requiredKeys: ['hook_event_name'] },
      )
      .map((o) => Buffer.from(JSON.stringify(o))),
    fc.tuple(fc.constantFrom(...texts), fc.nat()).map(([t, n]) => Buffer.from(t.slice(0, n % t.length))),
    fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
    fc.constant(Buffer.alloc(0)),
  );

  it('any payload, any --agent: resolves with exit 0 and nothing printed', async () => {
    await fc.assert(
      fc.asyncProperty(payloads, fc.constantFrom(undefined, ...AGENTS, 'nope'), async (input, agent) => {
        const result = await runHook(agent ? ['--agent', agent] : [], { stdin: Readable.from([input]), env: { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: '2000' } });
        expect(result).toEqual({ stdout: '', stderr: '', exitCode: 0 });
      }),
      { numRuns: 300 },
    );
    // Whatever was recorded is well-formed: every line parses, every marker is schema 1.
    const runs = join(sandbox.dataDir, 'runs');
    if (existsSync(runs)) for (const d of readdirSync(runs)) expect(readMarkers(join(runs, d, 'markers.jsonl')).badLines).toEqual([]);
  }, 120_000);

  it('the built process agrees on a sample of the same inputs', async () => {
    await fc.assert(
      fc.asyncProperty(payloads, fc.constantFrom(undefined, ...AGENTS), async (input, agent) => {
        expectSilent(await hook(agent ? ['--agent', agent] : [], input));
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});

