import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CordonPlugin } from '@cordon/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CordonHost } from '../../src/bus/host.js';
import { handleHookPayload, MAX_FEEDBACK_CHARS } from '../../src/hot/handle.js';
import { loopFeedbackText } from '../../src/loop-breaker/index.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { hostWithDialects, tempDir } from '../hot/support.js';

// Issue 31 §2 through `handleHookPayload`: what each dialect prints after the third failure, the
// markers, the threshold settings, and the after-call reply a plugin tap can give.

/** A failed shell call's after payload, per agent (shapes of test/fixtures/hook-payloads). */
const FAILED: Record<string, (session: string, command: string, i: number) => Record<string, unknown>> = {
  'claude-code': (session, command, i) => ({ session_id: session, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command }, tool_use_id: `t${i}`, error: 'Exit code 1', cwd: '/w' }),
  gemini: (session, command) => ({ session_id: session, hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command }, tool_response: { llmContent: 'Output: (empty)\nExit Code: 1', returnDisplay: '' }, cwd: '/w' }),
  cursor: (session, command, i) => ({ conversation_id: session, hook_event_name: 'postToolUseFailure', tool_name: 'Shell', tool_input: { command }, tool_use_id: `c${i}`, error_message: 'exit 1', cwd: '/w' }),
  hermes: (session, command, i) => ({ session_id: session, hook_event_name: 'post_tool_call', tool_name: 'terminal', tool_input: { command }, extra: { tool_call_id: `h${i}`, result: JSON.stringify({ exit_code: 1, output: '' }) }, cwd: '/w' }),
};
const OK_CLAUDE = (session: string, command: string, i: number) => ({ session_id: session, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `ok${i}`, tool_response: { stdout: '', stderr: '' }, cwd: '/w' });

/** What each agent is told at the third failure (the agent hook docs; docs/hooks.md "After-call feedback"). */
const EXPECTED: Record<string, (text: string) => unknown> = {
  'claude-code': (text) => ({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: text } }),
  gemini: (text) => ({ hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: text } }),
  cursor: (text) => ({ additional_context: text }),
};

describe('the loop breaker in the hook', () => {
  let tmp: ReturnType<typeof tempDir>;
  let host: CordonHost;
  beforeEach(async () => {
    tmp = tempDir('cordon-loop-hook-');
    host = await hostWithDialects(tmp.dir);
  });
  afterEach(() => tmp.cleanup());

  const markers = (session: string) => readMarkers(join(sessionDir(tmp.dir, session), 'markers.jsonl')).markers.filter((m) => m.event === 'tool_end');
  const run = (agent: string, payload: Record<string, unknown>, env: Record<string, string> = {}) => handleHookPayload(payload, { host, agent, env });

  it.each(Object.keys(EXPECTED))('%s: silent on the first two failures, the feedback in its own format on the third and after', async (agent) => {
    const outs: string[] = [];
    for (let i = 0; i < 4; i++) outs.push((await run(agent, FAILED[agent]!('s-' + agent, `make  test`, i))).stdout);
    expect(outs.slice(0, 2)).toEqual(['', '']);
    expect(JSON.parse(outs[2]!)).toEqual(EXPECTED[agent]!(loopFeedbackText(3)));
    expect(JSON.parse(outs[3]!)).toEqual(EXPECTED[agent]!(loopFeedbackText(4)));
    expect(markers('s-' + agent).map((m) => [m.exit_status, m.loop_failures, m.loop_repeat, m.feedback_by])).toEqual([
      ['failed', undefined, undefined, undefined],
      ['failed', undefined, undefined, undefined],
      ['failed', 3, undefined, ['cordon']],
      ['failed', 4, true, ['cordon']],
    ]);
  });

  it('Hermes: its post_tool_call answer does not reach the model, so nothing is printed or recorded', async () => {
    for (let i = 0; i < 4; i++) expect((await run('hermes', FAILED.hermes!('s-h', 'make test', i))).stdout).toBe('');
    expect(markers('s-h').map((m) => [m.exit_status, m.loop_failures])).toEqual(Array(4).fill(['failed', undefined]));
  });

  it('a success of the command in between starts the count again; other sessions do not count', async () => {
    const c = FAILED['claude-code']!;
    await run('claude-code', c('s1', 'false', 0));
    await run('claude-code', c('s1', 'false', 1));
    await run('claude-code', OK_CLAUDE('s1', 'false', 2));
    await run('claude-code', c('s2', 'false', 3));
    await run('claude-code', c('s1', 'false', 4));
    expect((await run('claude-code', c('s1', 'false', 5))).stdout).toBe('');
    expect((await run('claude-code', c('s1', 'false', 6))).stdout).toContain('failed 3 times');
  });

  it('the threshold: CORDON_LOOP_BREAKER=2, =off, and hook.json', async () => {
    const c = FAILED['claude-code']!;
    await run('claude-code', c('two', 'false', 0), { CORDON_LOOP_BREAKER: '2' });
    expect((await run('claude-code', c('two', 'false', 1), { CORDON_LOOP_BREAKER: '2' })).stdout).toContain('failed 2 times');
    for (let i = 0; i < 5; i++) expect((await run('claude-code', c('off', 'false', i), { CORDON_LOOP_BREAKER: 'off' })).stdout).toBe('');
    writeFileSync(join(tmp.dir, 'hook.json'), '{"loop-breaker": 4}');
    const outs: string[] = [];
    for (let i = 0; i < 4; i++) outs.push((await run('claude-code', c('file', 'false', i))).stdout);
    expect(outs.map((o) => o !== '')).toEqual([false, false, false, true]);
  });

  it('ok calls, non-shell failures and unknown outcomes never get it', async () => {
    for (let i = 0; i < 4; i++) expect((await run('claude-code', OK_CLAUDE('k', 'false', i))).stdout).toBe('');
    const edit = (i: number) => ({ session_id: 'k', hook_event_name: 'PostToolUseFailure', tool_name: 'Edit', tool_input: { file_path: '/w/a', old_string: 'x', new_string: 'y' }, tool_use_id: `e${i}`, error: 'String to replace not found' });
    for (let i = 0; i < 4; i++) expect((await run('claude-code', edit(i))).stdout).toBe('');
  });
});

describe('after-call feedback from a plugin tap', () => {
  let tmp: ReturnType<typeof tempDir>;
  afterEach(() => tmp.cleanup());

  const tapping = (feedback: unknown): CordonPlugin => ({
    name: 'test-feedback',
    apply(api) {
      api.hooks.afterToolCall.tapPromise({ name: 'feedback', stage: api.stage.OBSERVE }, async (result) => ({ ...result, feedback }) as typeof result);
    },
  });

  it('reaches the agent on any call, joined with the loop breaker, and names who gave it', async () => {
    tmp = tempDir('cordon-feedback-');
    const host = await hostWithDialects(tmp.dir, [tapping([{ text: 'The linter found 2 problems.', by: 'test-feedback' }])]);
    const ok = await handleHookPayload(OK_CLAUDE('f', 'npm run lint', 0), { host, agent: 'claude-code', env: {} });
    expect(JSON.parse(ok.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'The linter found 2 problems.' } });
    const c = FAILED['claude-code']!;
    await handleHookPayload(c('f', 'false', 1), { host, agent: 'claude-code', env: {} });
    await handleHookPayload(c('f', 'false', 2), { host, agent: 'claude-code', env: {} });
    const third = await handleHookPayload(c('f', 'false', 3), { host, agent: 'claude-code', env: {} });
    expect(JSON.parse(third.stdout).hookSpecificOutput.additionalContext).toBe(`The linter found 2 problems.\n\n${loopFeedbackText(3)}`);
    expect(third.marker).toMatchObject({ loop_failures: 3, feedback_by: ['test-feedback', 'cordon'] });
  });

  it('feedback over 8,000 characters is cut (on a character boundary)', async () => {
    tmp = tempDir('cordon-feedback-');
    const host = await hostWithDialects(tmp.dir, [tapping([{ text: '\u{1F600}'.repeat(5000), by: 'test-feedback' }])]);
    const out = await handleHookPayload(OK_CLAUDE('long', 'true', 0), { host, agent: 'claude-code', env: {} });
    const text: string = JSON.parse(out.stdout).hookSpecificOutput.additionalContext;
    expect(text.length).toBeLessThanOrEqual(MAX_FEEDBACK_CHARS);
    expect(text.length).toBeGreaterThan(7000);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('malformed feedback is dropped (logged), the call goes on silently', async () => {
    tmp = tempDir('cordon-feedback-');
    for (const bad of ['text', [{ text: '' }], [{ by: 'x' }], [null], 42]) {
      const host = await hostWithDialects(tmp.dir, [tapping(bad)]);
      const out = await handleHookPayload(OK_CLAUDE('g', 'true', 0), { host, agent: 'claude-code', env: {} });
      expect(out.stdout, JSON.stringify(bad)).toBe('');
      expect(out.marker?.event).toBe('tool_end');
    }
  });
});
