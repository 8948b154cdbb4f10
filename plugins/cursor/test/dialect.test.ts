import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleHookPayload } from '../../../packages/host/src/hot/handle.js';
import { chooseDialect } from '../../../packages/host/src/hot/choose-dialect.js';
import { dialectContext } from '../../../packages/host/src/hot/dialect-context.js';
import { readMarkers } from '../../../packages/host/src/telemetry/markers.js';
import { sessionDir } from '../../../packages/host/src/telemetry/session-dir.js';
import { hostWithDialects, policyPlugin, tempDir } from '../../../packages/host/test/hot/support.js';
import type { CordonHost } from '../../../packages/host/src/bus/host.js';
import { dialect } from '../src/dialect/index.js';

// No Cursor binary can be installed here: these payloads follow the formats in
// the Cursor hooks docs (Cursor docs, entireio/mulmoterminal captures).

const CONVERSATION = '4f1c2a7e-0d3b-4c1e-9a55-7c2b1e0f9d11';
const common = { conversation_id: CONVERSATION, generation_id: 'gen-1', model: 'claude-4.5-sonnet', cursor_version: '2.4.21', workspace_roots: ['/home/u/proj'], user_email: 'u@example.com', transcript_path: null };
const shell = { command: 'npm test' };
const pre = (id: string, input: Record<string, unknown> = shell) => ({ ...common, hook_event_name: 'preToolUse', tool_name: 'Shell', tool_input: input, tool_use_id: id, cwd: '/home/u/proj', agent_message: 'running the tests' });
const PAYLOADS = {
  sessionStart: { ...common, hook_event_name: 'sessionStart', session_id: CONVERSATION, is_background_agent: false },
  pre: pre('call_abc\nctc_def'),
  post: { ...pre('call_abc\nctc_def'), hook_event_name: 'postToolUse', tool_output: JSON.stringify({ exitCode: 0, stdout: 'ok', stderr: '' }), duration: 1234.5 },
  preFail: pre('call_fail\nctc_1', { command: 'npm run lint' }),
  postFail: { ...pre('call_fail\nctc_1', { command: 'npm run lint' }), hook_event_name: 'postToolUseFailure', error_message: 'Command failed with exit code 1', failure_type: 'error', duration: 88 },
  preNonZero: pre('call_nz', { command: 'false' }),
  postNonZero: { ...pre('call_nz', { command: 'false' }), hook_event_name: 'postToolUse', tool_output: JSON.stringify({ exitCode: 3, stdout: '', stderr: 'boom' }), duration: 5 },
  preBlocked: pre('call_rm', { command: 'rm -rf node_modules' }),
  shellExec: { ...common, hook_event_name: 'beforeShellExecution', command: 'npm test', cwd: '/home/u/proj' },
  sessionEnd: { ...common, hook_event_name: 'sessionEnd', session_id: CONVERSATION, reason: 'completed', duration_ms: 60000, is_background_agent: false, final_status: 'completed' },
};

let tmp: ReturnType<typeof tempDir>;
let host: CordonHost;
beforeEach(async () => {
  tmp = tempDir('cordon-cursor-');
  host = await hostWithDialects(tmp.dir, [policyPlugin('rm -rf', { kind: 'deny', reason: 'no recursive deletes' })]);
});
afterEach(() => tmp.cleanup());

describe('Cursor dialect', () => {
  it('is recognised from camelCase events and conversation_id', () => {
    for (const p of Object.values(PAYLOADS)) expect(chooseDialect(host, undefined, p, {}).entry?.name).toBe('cursor');
  });

  it('keys tool events by conversation_id, keeps ids with newlines, reads failures and exit codes', async () => {
    expect(await dialect.parse(PAYLOADS.pre, dialectContext({}))).toMatchObject({ kind: 'tool.before', sessionId: CONVERSATION, callId: 'call_abc\nctc_def', toolName: 'Shell', cwd: '/home/u/proj' });
    expect(await dialect.parse(PAYLOADS.post, dialectContext({}))).toMatchObject({ kind: 'tool.after', status: 'ok', exitCode: 0, durationMs: 1234.5 });
    expect(await dialect.parse(PAYLOADS.postFail, dialectContext({}))).toMatchObject({ kind: 'tool.after', status: 'failed', error: 'Command failed with exit code 1', durationMs: 88 });
    expect(await dialect.parse(PAYLOADS.postNonZero, dialectContext({}))).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(await dialect.parse(PAYLOADS.sessionStart, dialectContext({}))).toMatchObject({ kind: 'session.start', sessionId: CONVERSATION, cwd: '/home/u/proj' });
    expect(await dialect.parse(PAYLOADS.sessionEnd, dialectContext({}))).toMatchObject({ kind: 'session.end' });
    expect(await dialect.parse({ ...common, hook_event_name: 'stop' }, dialectContext({}))).toMatchObject({ kind: 'turn.end' });
    // The *Execution events duplicate the tool events cordon installs; they are not recorded twice.
    expect(await dialect.parse(PAYLOADS.shellExec, dialectContext({}))).toBeUndefined();
    expect(dialect.canonicalTool('StrReplace', {})).toBe('edit');
    expect(dialect.canonicalTool('MCP:github_search', {})).toBe('mcp');
  });

  it('records a whole session: pairs by id, failures as failures, the denied call as a permission deny', async () => {
    const order = [PAYLOADS.sessionStart, PAYLOADS.pre, PAYLOADS.post, PAYLOADS.preFail, PAYLOADS.postFail, PAYLOADS.preNonZero, PAYLOADS.postNonZero, PAYLOADS.preBlocked, PAYLOADS.shellExec, PAYLOADS.sessionEnd];
    const outcomes = [];
    for (const p of order) outcomes.push(await handleHookPayload(p, { host, agent: 'cursor', env: {} }));
    const denied = outcomes[7]!;
    expect(denied.exitCode).toBe(0);
    expect(JSON.parse(denied.stdout)).toEqual({ permission: 'deny', agent_message: 'no recursive deletes', user_message: 'no recursive deletes' });
    for (const [i, o] of outcomes.entries()) if (i !== 7) expect(o.stdout).toBe('');
    const { markers, badLines } = readMarkers(join(sessionDir(tmp.dir, CONVERSATION), 'markers.jsonl'));
    expect(badLines).toEqual([]);
    expect(markers.map((m) => m.event)).toEqual(['session_start', 'tool_start', 'tool_end', 'tool_start', 'tool_end', 'tool_start', 'tool_end', 'tool_denied', 'session_end']);
    expect(markers[1]!.call_key).toBe('call_abc\nctc_def');
    expect(markers[2]!.call_key).toBe('call_abc\nctc_def');
    expect(markers.filter((m) => m.event === 'tool_end').map((m) => m.exit_status)).toEqual(['ok', 'failed', 'failed']);
    expect(markers[4]!.error).toBe('Command failed with exit code 1');
    expect(markers[6]!.exit_code).toBe(3);
    expect(markers[7]).toMatchObject({ exit_status: 'denied', command: 'rm -rf node_modules', decided_by: 'test-policy' });
  });

  it('writes rewrites as updated_input without granting permission', () => {
    const call = { agent: 'cursor', sessionId: 's', callKey: 'k', callKeySource: 'agent', toolName: 'Shell', canonicalTool: 'shell', toolInput: shell, command: 'npm test', nativeEvent: 'preToolUse', raw: {} } as const;
    expect(JSON.parse(dialect.reply({ kind: 'rewrite', toolInput: { command: 'cordon control run -- npm test' } }, call).stdout)).toEqual({ updated_input: { command: 'cordon control run -- npm test' } });
  });

  it('recognises cursor-agent as the agent process', () => {
    expect(dialect.isAgentProcess({ pid: 10, ppid: 1, comm: 'cursor-agent', argv: ['cursor-agent', '-p', 'x'] })).toBe(true);
    expect(dialect.isAgentProcess({ pid: 10, ppid: 1, comm: 'node', exe: '/usr/bin/node', argv: ['node', '/home/u/.local/share/cursor-agent/versions/2025.09/index.js'] })).toBe(true);
    expect(dialect.isAgentProcess({ pid: 10, ppid: 1, comm: 'node', exe: '/usr/bin/node', argv: ['node', 'server.js'] })).toBe(false);
  });
});
