import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { loopFeedbackText } from '../../src/loop-breaker/index.js';
import { AGENT_PLUGINS, hookViaSocket, PATIENT_HOOK_ENV, tapPlugin } from '../hot/support.js';

// The built `cordon hook` process: after-call feedback leaves on stdout both when the payload is
// handled on the main thread (no tapping plugin: the loop breaker alone) and on the worker thread
// that runs tapping plugins.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-loop-process-');
  sandbox.env.CORDON_SAMPLER = 'off';
  Object.assign(sandbox.env, PATIENT_HOOK_ENV);
});
afterEach(() => sandbox.cleanup());

const failed = (i: number, command = 'false') => JSON.stringify({ session_id: 'p1', hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command }, tool_use_id: `t${i}`, error: 'Exit code 1', cwd: '/w' });

describe('cordon hook process: after-call feedback', () => {
  it('the loop breaker alone (main thread): silent twice, then the feedback, exit 0, nothing on stderr', async () => {
    linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await hookViaSocket(['--agent', 'claude-code'], failed(i), false, sandbox.env));
    expect(runs.map((r) => [r.exitCode, r.stderr])).toEqual([[0, ''], [0, ''], [0, '']]);
    expect(runs.slice(0, 2).map((r) => r.stdout)).toEqual(['', '']);
    expect(JSON.parse(runs[2]!.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', additionalContext: loopFeedbackText(3) } });
  });

  it("a plugin's feedback through the worker thread, joined with the loop breaker's", async () => {
    const tap = tapPlugin(sandbox.dir('plugin-hint'), 'cordon-test-hint', `async (result) => ({ ...result, feedback: [...(result.feedback ?? []), { text: 'hint from a plugin', by: 'hint' }] })`, 'afterToolCall');
    linkPluginRoots(sandbox.dataDir, [...AGENT_PLUGINS, tap]);
    const outs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await hookViaSocket(['--agent', 'claude-code'], failed(i, `sh -c 'exit 1'`), false, sandbox.env);
      expect(r.exitCode).toBe(0);
      outs.push(JSON.parse(r.stdout).hookSpecificOutput.additionalContext);
    }
    expect(outs).toEqual(['hint from a plugin', 'hint from a plugin', `hint from a plugin\n\n${loopFeedbackText(3)}`]);
  });

  it('CORDON_LOOP_BREAKER=off in the agent environment: silent', async () => {
    linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
    for (let i = 0; i < 4; i++) expect((await hookViaSocket(['--agent', 'claude-code'], failed(i), false, { ...sandbox.env, CORDON_LOOP_BREAKER: 'off' })).stdout).toBe('');
  });
});
