import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { AGENT_PLUGINS, hookLog, hookViaShell as runHookViaShell, hookViaSocket as runHookViaSocket, PATIENT_HOOK_ENV, tapPlugin } from './support.js';
import { parseAgentJson } from '../../src/hot/payload-json.js';
import { readMarkers, type Marker } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';

// Faults of the hook's hot path from issues 11 and 13, each with the example and further
// inputs of the same kind, run through the built `cordon hook` process as agents run it.

/** The test's own guard: a hook still running after this is killed, and the test fails on the signal. */
const WATCHDOG_MS = 60_000;

let sandbox: Sandbox;

function plugin(name: string, hook: 'beforeToolCall' | 'afterToolCall', body: string): { name: string; root: string } {
  return tapPlugin(sandbox.dir(`plugin-${name}`), name, body, hook);
}

function link(...extra: Array<{ name: string; root: string }>): void {
  linkPluginRoots(sandbox.dataDir, [...AGENT_PLUGINS, ...extra]);
}

const logLines = (): Array<Record<string, unknown>> => hookLog(sandbox.dataDir);

function markersOf(session: string): { markers: Marker[]; badLines: number[] } {
  return readMarkers(join(sessionDir(sandbox.dataDir, session), 'markers.jsonl'));
}

function hookViaShell(args: string[], stdin: string, env: NodeJS.ProcessEnv = sandbox.env): Promise<RunResult> {
  return runHookViaShell(args, stdin, env);
}

function hookViaSocket(args: string[], input: string | Buffer, keepOpen: boolean, env: NodeJS.ProcessEnv = sandbox.env): Promise<RunResult> {
  return runHookViaSocket(args, input, keepOpen, env);
}

function expectSilent(r: RunResult): void {
  expect(r.signal).toBeNull();
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe('');
}

beforeEach(() => {
  sandbox = makeSandbox('cordon-hook-faults-');
  sandbox.env.CORDON_SAMPLER = 'off';
  // No bound may fire because the machine is busy (tests of the bounds set their own).
  Object.assign(sandbox.env, PATIENT_HOOK_ENV);
  link();
});
afterEach(() => sandbox.cleanup());

describe('raw control characters inside payload strings', () => {
  // The example, with a real TAB byte inside tool_input.command.
  const example = '{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"printf \'a\tb\'"},"tool_use_id":"t1","cwd":"/w"}';

  it('the example: parsed, marker written with the TAB kept, and a policy sees the call', async () => {
    expect(() => JSON.parse(example)).toThrow();
    link(plugin('denier', 'beforeToolCall', 'async (call) => call.command.includes("\\t") ? { kind: "deny", reason: "tab seen" } : undefined'));
    const r = await hookViaSocket(['--agent', 'claude-code'], example, false);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'tab seen' });
    const { markers, badLines } = markersOf('s1');
    expect(badLines).toEqual([]);
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ event: 'tool_denied', call_key: 't1', command: "printf 'a\tb'" });
  });

  it('a heredoc with raw newlines, CR and other C0 controls: parsed and recorded as sent, on a pipe too', async () => {
    const command = 'cat <<EOF\nline one\r\n\tindented\u0001\u001f\nEOF';
    const raw = JSON.stringify({ session_id: 's2', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 't2' }).replace(/\\n/g, '\n').replace(/\\r/g, '\r').replace(/\\t/g, '\t').replace(/\\u0001/g, '\u0001').replace(/\\u001f/g, '\u001f');
    expect(() => JSON.parse(raw)).toThrow();
    const file = join(sandbox.dir('stdin'), 'payload.json');
    writeFileSync(file, raw);
    expectSilent(await hookViaShell(['--agent', 'claude-code'], `< <(cat '${file}')`));
    expect(markersOf('s2').markers.map((m) => m.command)).toEqual([command]);
  });

  it('parseAgentJson: any object whose strings hold raw C0 controls parses to the value meant; strict JSON is untouched', () => {
    const text = fc.string({ unit: fc.oneof(fc.constantFrom(...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)), '"', '\\', 'é', '😀'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })) });
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.integer())), (value) => {
        const strict = JSON.stringify(value);
        expect(parseAgentJson(strict)).toEqual(value);
        // The same document with every escaped control character written raw, as agents send it.
        const raw = strict.replace(/\\u00([01][0-9a-f])|\\([btnfr])/g, (m, hex: string | undefined, short: string | undefined) => {
          if (hex) return String.fromCharCode(parseInt(hex, 16));
          return { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r' }[short!]!;
        });
        expect(parseAgentJson(raw)).toEqual(value);
      }),
      { numRuns: 500 },
    );
    // Outside strings, a control character other than JSON whitespace is still invalid.
    expect(() => parseAgentJson('{"a":1\u0001}')).toThrow(SyntaxError);
    expect(parseAgentJson('{\t"a"\n:\r1}')).toEqual({ a: 1 });
  });

  // A payload cut off inside a string (an agent killed mid-write), holding a raw TAB, then many
  // quotes: the repair used to try a string token at every quote, each try scanning to the end of
  // the text, synchronously, where no time bound reaches: 200 KB of `\"` held the hook a minute.
  it.each([
    ['escaped quotes', '\\"'],
    ['strings opened and never closed', '"a\\'],
    ['quoted words between raw TABs, as a heredoc of them', '\t\\"w\\"'],
  ])('a payload cut off mid-string after a raw TAB, then 1 MB of %s: dropped as not JSON within the default bounds', async (_label, unit) => {
    const text = '{"session_id":"cut","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"\t' + unit.repeat(Math.ceil((1024 * 1024) / unit.length));
    const defaults = { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: '', CORDON_HOOK_TIMEOUT_MS: '' };
    expectSilent(await hookViaSocket(['--agent', 'claude-code'], text, false, defaults));
    expect(logLines().filter((l) => l.problem !== undefined).map((l) => l.problem)).toEqual(['not-json']);
    expect(markersOf('cut').markers).toEqual([]);
  });
});

describe('a complete payload while the agent keeps stdin open', () => {
  const payload = { session_id: 'open-1', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo "} { ] [ \\" \\\\"' }, tool_use_id: 'c1' };

  it('a socket kept open: the payload is used at once (not after the stdin timeout) and recorded', async () => {
    // A stdin timeout far beyond the watchdog: only using the complete document can end the run.
    const env = { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: String(10 * WATCHDOG_MS), CORDON_HOOK_TIMEOUT_MS: String(10 * WATCHDOG_MS) };
    expectSilent(await hookViaSocket(['--agent', 'codex'], JSON.stringify(payload), true, env));
    expect(markersOf('open-1').markers).toMatchObject([{ event: 'tool_start', call_key: 'c1', command: payload.tool_input.command }]);
    expect(logLines().filter((l) => l.problem === 'timeout')).toEqual([]);
  });

  it('a pipe kept open, with the payload split across writes (braces inside strings): used once complete', async () => {
    const env = { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: String(10 * WATCHDOG_MS), CORDON_HOOK_TIMEOUT_MS: String(10 * WATCHDOG_MS) };
    const text = JSON.stringify({ ...payload, session_id: 'open-2' });
    const half = text.indexOf('} {');
    const dir = sandbox.dir('parts');
    writeFileSync(join(dir, 'a'), text.slice(0, half));
    writeFileSync(join(dir, 'b'), `${text.slice(half)}\n`);
    // The writer sends both halves 0.2 s apart (two writes), then stays open until the call is
    // recorded, or past the watchdog (2 minutes): only using the complete document ends the run.
    const markers = join(sessionDir(sandbox.dataDir, 'open-2'), 'markers.jsonl');
    const r = await hookViaShell(['--agent', 'codex'], `< <(cat '${dir}/a'; sleep 0.2; cat '${dir}/b'; i=0; until [ -s '${markers}' ] || [ $i -ge 2400 ]; do sleep 0.05; i=$((i+1)); done)`, env);
    expectSilent(r);
    expect(markersOf('open-2').markers.map((m) => m.call_key)).toEqual(['c1']);
  });

  it('an incomplete document on an open stdin still waits only CORDON_HOOK_STDIN_TIMEOUT_MS, and is dropped', async () => {
    const text = JSON.stringify({ ...payload, session_id: 'open-3' });
    expectSilent(await hookViaSocket(['--agent', 'codex'], text.slice(0, -1), true, { ...sandbox.env, CORDON_HOOK_STDIN_TIMEOUT_MS: '300' }));
    expect(markersOf('open-3').markers).toEqual([]);
    expect(logLines().some((l) => l.problem === 'timeout')).toBe(true);
  });

  it('a file on stdin (complete, with a raw TAB) is recorded as before', async () => {
    const file = join(sandbox.dir('stdin'), 'p.json');
    writeFileSync(file, JSON.stringify({ ...payload, session_id: 'open-4' }).replace('echo', 'echo\t'));
    expectSilent(await hookViaShell(['--agent', 'codex'], `< '${file}'`));
    expect(markersOf('open-4').markers).toHaveLength(1);
  });
});

describe('a path the payload names never blocks the hook', () => {
  const post = (transcript: string) => JSON.stringify({ session_id: 's', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c1', tool_response: 'x', transcript_path: transcript, cwd: '/tmp' });

  it('the example: transcript_path a FIFO nobody writes; exits by itself, 0, nothing printed, the call recorded unknown', async () => {
    const fifo = join(sandbox.dir('fifo'), 't');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Under the patient bound: a hook blocked on the FIFO would be killed by the watchdog (a signal).
    const r = await hookViaSocket(['--agent', 'codex'], post(fifo), false);
    expectSilent(r);
    expect(markersOf('s').markers).toMatchObject([{ event: 'tool_end', exit_status: 'unknown', call_key: 'c1' }]);
  });

  it.each([
    ['/dev/zero (endless)', '/dev/zero'],
    ['a directory', '/tmp'],
    ['a missing file', '/nonexistent/rollout.jsonl'],
  ])('transcript_path %s: read as nothing, the call recorded unknown', async (_label, path) => {
    expectSilent(await hookViaSocket(['--agent', 'codex'], post(path), false));
    expect(markersOf('s').markers).toMatchObject([{ event: 'tool_end', exit_status: 'unknown' }]);
  });

  it('a huge rollout (64 MiB, sparse): only its tail is read, and the exit code found there is used', async () => {
    const file = join(sandbox.dir('huge'), 'rollout.jsonl');
    const line = JSON.stringify({ type: 'event_msg', payload: { type: 'item_completed', item: { id: 'c1', exit_code: 3 } } });
    expect(spawnSync('truncate', ['-s', String(64 * 1024 * 1024), file]).status).toBe(0);
    writeFileSync(file, `\n${line}\n`, { flag: 'a' });
    expectSilent(await hookViaSocket(['--agent', 'codex'], post(file), false));
    expect(markersOf('s').markers).toMatchObject([{ event: 'tool_end', exit_status: 'failed', exit_code: 3 }]);
  });
});

describe('a plugin tap that never yields cannot defeat the time bound', () => {
  const pre = JSON.stringify({ session_id: 'busy', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'b1', cwd: '/w' });
  const postPayload = JSON.stringify({ session_id: 'busy', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'b1', tool_response: {}, cwd: '/w' });

  it.each([
    ['beforeToolCall busy loop (the example)', 'beforeToolCall', '() => { for (;;) {} }', pre, 'tool_start'],
    ['beforeToolCall busy loop after an await', 'beforeToolCall', 'async () => { await null; while (true) Math.random(); }', pre, 'tool_start'],
    ['beforeToolCall promise that never settles', 'beforeToolCall', '() => new Promise(() => {})', pre, 'tool_start'],
    ['afterToolCall busy loop', 'afterToolCall', '() => { for (;;) {} }', postPayload, 'tool_end'],
  ] as const)('%s: exit 0 within the bound, nothing printed, the marker names the plugin', async (_label, hook, body, input, event) => {
    link(plugin('spinner', hook, body));
    // A window: the thread must have loaded the plugins and entered the tap when the bound comes
    // (well under a second on a quiet machine; 4 s leaves room for a loaded one).
    const r = await hookViaSocket(['--agent', 'claude-code'], input, false, { ...sandbox.env, CORDON_HOOK_TIMEOUT_MS: '4000' });
    expectSilent(r);
    const { markers } = markersOf('busy');
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ event, call_key: 'b1', plugin_failure: 'spinner' });
    const why = body.includes('new Promise') ? 'never settled' : "ran past the hook's time limit";
    expect(logLines().some((l) => l.plugin === 'spinner' && l.hook === hook && String(l.message).includes(why))).toBe(true);
  });

  it.each([
    ['its cordon:register module loops at its top level', 'for (;;) {}\nexport async function register() { return undefined; }\n'],
    ['its register function loops', 'export function register() { for (;;) {} }\n'],
    ['its register function loops after an await', 'export async function register() { await null; while (true) Math.random(); }\n'],
  ])('a plugin that never yields while it loads (%s): exit 0 within the bound, nothing printed, the call after it too', async (_label, source) => {
    // With no current plugin index (the first call after a plugin set changed) the plugins were
    // loaded on the main thread, where no timer runs: the hook never ended, and no index was
    // ever written, so every later call hung as well. Killed by the test's watchdog before.
    const dir = sandbox.dir('plugin-loader');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'loader', version: '0.0.0', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index.js', identifier: 'register' } } } }));
    writeFileSync(join(dir, 'index.js'), source);
    link({ name: 'loader', root: dir });
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      const r = await hookViaSocket(['--agent', 'claude-code'], pre, false, { ...sandbox.env, CORDON_HOOK_TIMEOUT_MS: '3000' });
      expectSilent(r);
      expect(Date.now() - started).toBeLessThan(WATCHDOG_MS / 2);
    }
    expect(logLines().filter((l) => String(l.message).startsWith('hook gave up: time limit reached') && l.phase === 'loading')).toHaveLength(2);
  });

  it('a well-behaved tapping plugin on the thread: its decision comes back and one marker is written', async () => {
    link(plugin('denier', 'beforeToolCall', 'async () => ({ kind: "deny", reason: "no" })'));
    for (let i = 0; i < 2; i++) {
      const r = await hookViaSocket(['--agent', 'claude-code'], pre, false);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    }
    expect(markersOf('busy').markers.map((m) => m.event)).toEqual(['tool_denied', 'tool_denied']);
  });

  it('taps run on the bus thread; CORDON_HOOK_THREAD=off runs them on the main thread', async () => {
    link(plugin('where', 'beforeToolCall', 'async () => { const { isMainThread } = await import("node:worker_threads"); return { kind: "deny", reason: "main thread: " + isMainThread }; }'));
    const reason = async (env: NodeJS.ProcessEnv) => JSON.parse((await hookViaSocket(['--agent', 'claude-code'], pre, false, env)).stdout).hookSpecificOutput.permissionDecisionReason;
    expect(await reason(sandbox.env)).toBe('main thread: false');
    expect(await reason({ ...sandbox.env, CORDON_HOOK_THREAD: 'off' })).toBe('main thread: true');
  });

  it('a tap that throws is named in the marker too', async () => {
    link(plugin('thrower', 'beforeToolCall', 'async () => { throw new Error("boom"); }'));
    expectSilent(await hookViaSocket(['--agent', 'claude-code'], pre, false));
    expect(markersOf('busy').markers).toMatchObject([{ event: 'tool_start', plugin_failure: 'thrower' }]);
  });
});

describe('what the hook logs stays bounded', () => {
  it('a payload no dialect takes, with a megabyte hook_event_name of escapes and ::error:: lines: silent, and its log line a few KiB', async () => {
    const name = `E${'\u001b[2J\n::error::pwned'.repeat(70_000)}`;
    for (let i = 0; i < 3; i++) expectSilent(await hookViaSocket([], JSON.stringify({ session_id: 'x', hook_event_name: name }), false));
    const log = readFileSync(join(sandbox.dataDir, 'logs', 'cordon.log'), 'utf8');
    expect(log.length).toBeLessThan(3 * 16 * 1024);
    const lines = logLines();
    expect(lines).toHaveLength(3);
    expect(String(lines[0]!.hook_event_name)).toMatch(/… \(1330001 characters\)$/);
  });
});
