import { appendFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { loopFeedbackText } from '../../src/loop-breaker/index.js';
import { markersPath, readMarkers } from '../../src/telemetry/markers.js';
import { AGENT_PLUGINS, FIXTURES, hookViaSocket, PATIENT_HOOK_ENV } from '../hot/support.js';

// The loop breaker under hostile input, through the built `cordon hook` with the failure payloads
// the agents send (the captured Claude Code PostToolUseFailure and Gemini CLI AfterTool fixtures):
// spelling variants of one command count as one, sessions never share a count, a damaged or
// planted marker log and junk settings never break the hook (exit 0, nothing on stderr, stdout
// empty or the agent's JSON), and the feedback never carries the command back.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-loop-hostile-');
  sandbox.env.CORDON_SAMPLER = 'off';
  Object.assign(sandbox.env, PATIENT_HOOK_ENV);
  linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
});
afterEach(() => sandbox.cleanup());

const CLAUDE = JSON.parse(readFileSync(join(FIXTURES, 'claude-code.PostToolUseFailure.Bash-failing-command.json'), 'utf8'));
const GEMINI = JSON.parse(readFileSync(join(FIXTURES, 'gemini-cli.AfterTool.run_shell_command-failing-command.json'), 'utf8'));

let n = 0;
/** A Claude Code failure of `command` in `session`, as Claude Code sends it. */
const claudeFailure = (command: string, session = 'hostile-1') => ({ ...CLAUDE, session_id: session, tool_input: { ...CLAUDE.tool_input, command }, tool_use_id: `toolu_h_${++n}` });

/** Runs the built hook; the feedback text, or undefined when it printed nothing. It must exit 0 with nothing on stderr. */
async function after(payload: Record<string, unknown>, env: NodeJS.ProcessEnv = sandbox.env, agent = 'claude-code'): Promise<string | undefined> {
  const r = await hookViaSocket(['--agent', agent], JSON.stringify(payload), false, env);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  if (r.stdout === '') return undefined;
  return JSON.parse(r.stdout).hookSpecificOutput.additionalContext;
}

describe('what counts as the same command', () => {
  it('spacing, quoting, a trailing newline and a line continuation are one command; different words are not', async () => {
    expect(await after(claudeFailure(`ls  /nonexistent-dir-xyz`))).toBeUndefined();
    expect(await after(claudeFailure(`ls "/nonexistent-dir-xyz"\n`))).toBeUndefined();
    expect(await after(claudeFailure(`'ls' \\\n  /nonexistent-dir-xyz`))).toBe(loopFeedbackText(3));
    expect(await after(claudeFailure(`ls /nonexistent-dir-xyz2`))).toBeUndefined();
  }, 60_000);

  it('a command with control characters or of a megabyte counts, and the feedback never echoes it', async () => {
    const bell = 'printf "\\033]0;pwned\\007" \u0007; exit 3';
    const huge = `echo ${'x'.repeat(1024 * 1024)}; false`;
    for (const command of [bell, huge]) {
      const texts = [];
      for (let i = 0; i < 3; i++) texts.push(await after(claudeFailure(command)));
      expect(texts).toEqual([undefined, undefined, loopFeedbackText(3)]);
      expect(texts[2]).not.toMatch(/[\u0000-\u001f]/);
    }
    const stored = readMarkers(markersPath(sandbox.dataDir, 'hostile-1')).markers.filter((m) => m.event === 'tool_end');
    expect(Math.max(...stored.map((m) => String(m.command).length))).toBeLessThanOrEqual(2000);
  }, 60_000);
});

describe('sessions and the marker log', () => {
  it('two sessions failing the same command in turn never share a count', async () => {
    const got = [];
    for (let i = 0; i < 3; i++) {
      got.push(await after(claudeFailure('false', 'sess-a')));
      got.push(await after(claudeFailure('false', 'sess-b')));
    }
    expect(got).toEqual([undefined, undefined, undefined, undefined, loopFeedbackText(3), loopFeedbackText(3)]);
  }, 60_000);

  it('a session id that tries to reach another session’s log is its own session', async () => {
    for (let i = 0; i < 2; i++) await after(claudeFailure('false', 'victim'));
    expect(await after(claudeFailure('false', '../runs/victim'))).toBeUndefined();
    expect(await after(claudeFailure('false', 'victim/'))).toBeUndefined();
    expect(await after(claudeFailure('false', 'victim'))).toBe(loopFeedbackText(3));
  }, 60_000);

  it('counts on through a log that is corrupt, torn mid-line or megabytes long', async () => {
    const log = markersPath(sandbox.dataDir, 'hostile-1');
    await after(claudeFailure('false'));
    appendFileSync(log, 'garbage {"event":"tool_end","tool":"shell"\n\u0000\u0001 not json\n');
    await after(claudeFailure('false'));
    appendFileSync(log, '{"v":1,"event":"tool_end","tool":"shell","command":"fal'); // torn: no newline
    expect(await after(claudeFailure('false'))).toBe(loopFeedbackText(3));
    expect(await after(claudeFailure('false'))).toBe(loopFeedbackText(4));
    // 8 MB of other markers after them: only the last 256 KiB are read, which hold no failure of
    // `false`, so the count starts again (the breaker errs towards silence, and stays fast).
    appendFileSync(log, `${JSON.stringify({ v: 1, event: 'turn_end', pad: 'p'.repeat(1000) })}\n`.repeat(8 * 1024));
    expect(await after(claudeFailure('false'))).toBeUndefined();
  }, 60_000);

  it('stays silent, and breaks nothing, when the log is a link, a directory or unreadable', async () => {
    const log = markersPath(sandbox.dataDir, 'hostile-1');
    await after(claudeFailure('false'));
    await after(claudeFailure('false'));
    const real = join(sandbox.root, 'elsewhere.jsonl');
    writeFileSync(real, readFileSync(log));
    rmSync(log);
    symlinkSync(real, log);
    expect(await after(claudeFailure('false'))).toBeUndefined();
    expect(readFileSync(real, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
    rmSync(log);
    mkdirSync(log);
    expect(await after(claudeFailure('false'))).toBeUndefined();
  }, 60_000);
});

describe('the state stays bounded', () => {
  it('a megabyte cwd, tool name or call id: each marker stays a few KiB, and the third failure is still answered', async () => {
    const payload = (i: number) => ({ ...claudeFailure('false', 'huge-fields'), cwd: `/w/${'c'.repeat(1 << 20)}`, tool_use_id: `toolu_${i}_${'i'.repeat(1 << 20)}` });
    expect([await after(payload(1)), await after(payload(2)), await after(payload(3))]).toEqual([undefined, undefined, loopFeedbackText(3)]);
    // Another megabyte working directory is another command.
    expect(await after({ ...payload(4), cwd: `/w/${'c'.repeat(1 << 20)}x` })).toBeUndefined();
    await after({ ...claudeFailure('false', 'huge-fields'), tool_name: `Bash${'x'.repeat(1 << 20)}` });
    const lines = readFileSync(markersPath(sandbox.dataDir, 'huge-fields'), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line.length).toBeLessThan(16 * 1024);
  }, 60_000);

  it('a megabyte session id: its markers stay a few KiB in its own directory, and the third failure is still answered', async () => {
    const session = `s-${'i'.repeat(1 << 20)}`;
    expect([await after(claudeFailure('false', session)), await after(claudeFailure('false', session)), await after(claudeFailure('false', session))]).toEqual([undefined, undefined, loopFeedbackText(3)]);
    expect(await after(claudeFailure('false', `${session}x`))).toBeUndefined();
    const lines = readFileSync(markersPath(sandbox.dataDir, session), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.length).toBeLessThan(16 * 1024);
  }, 60_000);
});

describe('what a count belongs to', () => {
  it('calls without a session id share no count (they could be any session)', async () => {
    const nameless = (i: number) => ({ ...claudeFailure('false'), session_id: i % 2 ? '' : undefined });
    for (let i = 0; i < 4; i++) expect(await after(nameless(i))).toBeUndefined();
  }, 60_000);

  it('the same words in another working directory are another command (the agent moved to where it may work)', async () => {
    const inDir = (cwd: string) => ({ ...claudeFailure('npm test'), cwd });
    expect([await after(inDir('/w/a')), await after(inDir('/w/b')), await after(inDir('/w/c'))]).toEqual([undefined, undefined, undefined]);
    expect([await after(inDir('/w/a')), await after(inDir('/w/a'))]).toEqual([undefined, loopFeedbackText(3)]);
  }, 60_000);
});

describe('settings', () => {
  it('junk in CORDON_LOOP_BREAKER falls back to the default threshold without a word to the agent', async () => {
    for (const value of ['abc', '1', '-3', '3.5', '1e3', '\u0663', '99999999999999999999', 'off!', '\u0007']) {
      const env = { ...sandbox.env, CORDON_LOOP_BREAKER: value };
      const session = `junk-${Buffer.from(value).toString('hex')}`;
      const got = [];
      for (let i = 0; i < 3; i++) got.push(await after(claudeFailure('false', session), env));
      expect(got, value).toEqual([undefined, undefined, loopFeedbackText(3)]);
    }
  }, 120_000);

  it('a damaged hook.json falls back to the default; a valid one sets the threshold', async () => {
    writeFileSync(join(sandbox.configDir, 'hook.json'), '{"loop-breaker": ');
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await after(claudeFailure('false', 'cfg-a')));
    expect(got).toEqual([undefined, undefined, loopFeedbackText(3)]);
    writeFileSync(join(sandbox.configDir, 'hook.json'), '{"loop-breaker": 2}');
    expect([await after(claudeFailure('false', 'cfg-b')), await after(claudeFailure('false', 'cfg-b'))]).toEqual([undefined, loopFeedbackText(2)]);
  }, 60_000);
});

describe('parallel calls of one session', () => {
  it('hooks running at once for the same failing command all exit 0 with valid output, and the next failure is answered', async () => {
    for (let i = 0; i < 2; i++) await after(claudeFailure('false', 'par'));
    const results = await Promise.all(Array.from({ length: 4 }, () => hookViaSocket(['--agent', 'claude-code'], JSON.stringify(claudeFailure('false', 'par')), false, sandbox.env)));
    for (const r of results) {
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
      if (r.stdout !== '') expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toMatch(/^\[cordon\] This exact command has now failed \d+ times in a row/);
    }
    const next = await after(claudeFailure('false', 'par'));
    expect(next).toMatch(/^\[cordon\] This exact command has now failed \d+ times in a row/);
    const ends = readMarkers(markersPath(sandbox.dataDir, 'par')).markers.filter((m) => m.event === 'tool_end');
    expect(ends).toHaveLength(7);
  }, 60_000);
});

describe('a failure the agent reports only in its text, or not at all', () => {
  it("a Gemini CLI result is read from its end: an `Exit Code:` line in the command's own output is not Gemini's", async () => {
    const result = (output: string, code?: number) => ({ ...GEMINI, session_id: 'gem-forged', tool_input: { ...GEMINI.tool_input, command: 'make check' }, tool_response: { llmContent: `<untrusted_context>\nOutput: ${output}${code === undefined ? '' : `\nExit Code: ${code}`}\nProcess Group PGID: 1\n</untrusted_context>`, returnDisplay: output } });
    // Fails (Gemini's Exit Code: 2) though its output reports a sub-step's `Exit Code: 0` first.
    const failing = () => result('step one\nExit Code: 0\nstep two failed', 2);
    expect([await after(failing(), sandbox.env, 'gemini'), await after(failing(), sandbox.env, 'gemini'), await after(failing(), sandbox.env, 'gemini')]).toEqual([undefined, undefined, loopFeedbackText(3)]);
    // Succeeds (no Exit Code line of Gemini's) though its output holds `Exit Code: 1`: the run ends.
    expect(await after(result('retrying\nExit Code: 1\nall passed'), sandbox.env, 'gemini')).toBeUndefined();
    expect(await after(failing(), sandbox.env, 'gemini')).toBeUndefined();
    const ends = readMarkers(markersPath(sandbox.dataDir, 'gem-forged')).markers.filter((m) => m.event === 'tool_end');
    expect(ends.map((m) => [m.exit_status, m.exit_code])).toEqual([['failed', 2], ['failed', 2], ['failed', 2], ['ok', 0], ['failed', 2]]);
  }, 60_000);

  it('a Codex shell call whose exit code is nowhere (no transcript) is no failure: never counted', async () => {
    const CODEX = JSON.parse(readFileSync(join(FIXTURES, 'codex.PostToolUse.Bash-failing-command.json'), 'utf8'));
    const payload = (i: number) => ({ ...CODEX, session_id: 'codex-unknown', transcript_path: join(sandbox.root, 'no-transcript.jsonl'), tool_use_id: `call_u_${i}` });
    for (let i = 0; i < 4; i++) expect(await after(payload(i), sandbox.env, 'codex')).toBeUndefined();
    const ends = readMarkers(markersPath(sandbox.dataDir, 'codex-unknown')).markers.filter((m) => m.event === 'tool_end');
    expect(ends.map((m) => m.exit_status)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
  }, 60_000);

  it('a Claude Code failure event without its error text still counts (the event itself says it failed)', async () => {
    const bare = () => {
      const { error: _error, ...rest } = claudeFailure('false', 'bare');
      return rest;
    };
    expect([await after(bare()), await after(bare()), await after(bare())]).toEqual([undefined, undefined, loopFeedbackText(3)]);
  }, 60_000);

  it('a Gemini CLI AfterTool whose exit code is only in the tool output counts', async () => {
    const payload = (i: number) => ({ ...GEMINI, session_id: 'gem', tool_input: { ...GEMINI.tool_input }, timestamp: `2026-12-01T00:00:0${i}Z` });
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await after(payload(i), sandbox.env, 'gemini'));
    expect(got[2]).toBe(loopFeedbackText(3));
  }, 60_000);
});
