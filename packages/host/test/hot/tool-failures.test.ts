import { join } from 'node:path';
import type { Dialect, NativeToolAfter } from '@cordon/plugin-api';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CordonHost } from '../../src/bus/host.js';
import { dialectContext, payloadReaders } from '../../src/hot/dialect-context.js';
import { handleHookPayload } from '../../src/hot/handle.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { dialect as claude } from '../../../../plugins/claude-code/src/dialect/index.js';
import { dialect as codex } from '../../../../plugins/codex/src/dialect/index.js';
import { dialect as cursor } from '../../../../plugins/cursor/src/dialect/index.js';
import { dialect as gemini } from '../../../../plugins/gemini/src/dialect/index.js';
import { dialect as hermes } from '../../../../plugins/hermes/src/dialect/index.js';
import { hostWithDialects, tempDir } from './support.js';

// Issue 11 item 6: how a non-shell tool ended, per agent. Failed when the payload says so,
// `unknown` when it cannot be told, ok only when the agent's event or result states it.

async function after(d: Dialect, payload: Record<string, unknown>): Promise<Pick<NativeToolAfter, 'status' | 'error'>> {
  const event = await d.parse(payload, dialectContext({}));
  expect(event?.kind).toBe('tool.after');
  const { status, error } = event as NativeToolAfter;
  return { status, ...(error !== undefined ? { error } : {}) };
}

const mcpError = { content: [{ type: 'text', text: 'rate limited by the server' }], isError: true };
const mcpOk = { content: [{ type: 'text', text: 'three results' }], isError: false };

describe('Codex: every non-shell tool end used to default to ok', () => {
  const base = { session_id: 's', hook_event_name: 'PostToolUse', tool_use_id: 'c1', cwd: '/w' };

  it('the example: an MCP result with isError: true is failed, with its text as the error', async () => {
    expect(await after(codex, { ...base, tool_name: 'mcp__github__search', tool_input: { q: 'x' }, tool_response: mcpError })).toEqual({ status: 'failed', error: 'rate limited by the server' });
  });

  it.each([
    ['the same result as JSON text', JSON.stringify(mcpError), { status: 'failed', error: 'rate limited by the server' }],
    ['an error object', { error: { message: 'server gone' } }, { status: 'failed', error: 'server gone' }],
    ['success: false without text', { success: false }, { status: 'failed', error: '{"success":false}' }],
    ['isError: false', mcpOk, { status: 'ok' }],
    ['isError: false as JSON text', JSON.stringify(mcpOk), { status: 'ok' }],
    ['plain text (cannot be told)', 'three results', { status: 'unknown' }],
    ['a result without any signal', { content: [] }, { status: 'unknown' }],
    ['no result at all', undefined, { status: 'unknown' }],
  ])('MCP tool, %s', async (_label, response, expected) => {
    expect(await after(codex, { ...base, tool_name: 'mcp__db__query', tool_input: {}, ...(response !== undefined ? { tool_response: response } : {}) })).toEqual(expected);
  });

  it('other non-shell tools: apply_patch by its exit line, anything else unknown', async () => {
    expect(await after(codex, { ...base, tool_name: 'apply_patch', tool_input: { command: '*** Begin Patch\n*** End Patch\n' }, tool_response: 'Exit code: 1\nWall time: 0 seconds\nOutput:\nerror: no such file\n' })).toMatchObject({ status: 'failed' });
    expect(await after(codex, { ...base, tool_name: 'apply_patch', tool_input: { command: '*** Begin Patch\n*** End Patch\n' }, tool_response: 'Exit code: 0\nOutput:\nSuccess.\n' })).toEqual({ status: 'ok' });
    expect(await after(codex, { ...base, tool_name: 'view_image', tool_input: { path: '/a.png' }, tool_response: 'attached' })).toEqual({ status: 'unknown' });
    // A non-MCP tool whose text happens to look like a failed result is not read as one.
    expect(await after(codex, { ...base, tool_name: 'view_image', tool_input: {}, tool_response: JSON.stringify(mcpError) })).toEqual({ status: 'unknown' });
  });
});

describe('Claude Code: a failing tool fires PostToolUseFailure', () => {
  const base = { session_id: 's', tool_use_id: 't', cwd: '/w' };
  it.each([
    ['PostToolUseFailure of Read', { ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Read', tool_input: { file_path: '/nope' }, error: 'File does not exist.' }, { status: 'failed', error: 'File does not exist.' }],
    ['PostToolUseFailure of an MCP tool', { ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'mcp__github__search', tool_input: {}, error: 'MCP error -32000' }, { status: 'failed', error: 'MCP error -32000' }],
    ['PostToolUse of Read', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: '/a' }, tool_response: { type: 'text', file: { content: '{"isError": true}' } } }, { status: 'ok' }],
    ['PostToolUse of an MCP tool whose result still says isError', { ...base, hook_event_name: 'PostToolUse', tool_name: 'mcp__db__query', tool_input: {}, tool_response: mcpError }, { status: 'failed', error: 'rate limited by the server' }],
    ['PostToolUse of an MCP tool (content blocks)', { ...base, hook_event_name: 'PostToolUse', tool_name: 'mcp__db__query', tool_input: {}, tool_response: [{ type: 'text', text: 'ok' }] }, { status: 'ok' }],
  ])('%s', async (_label, payload, expected) => {
    expect(await after(claude, payload)).toEqual(expected);
  });
});

describe('Gemini CLI: AfterTool carries `error` on every failed result', () => {
  const base = { session_id: 's', hook_event_name: 'AfterTool', cwd: '/w' };
  it.each([
    ['read_file with an error', { ...base, tool_name: 'read_file', tool_input: { file_path: '/nope' }, tool_response: { llmContent: '', returnDisplay: '', error: { message: 'File not found: /nope', type: 'FILE_NOT_FOUND' } } }, { status: 'failed', error: 'File not found: /nope' }],
    ['an MCP tool with an error string', { ...base, tool_name: 'mcp_db_query', tool_input: {}, tool_response: { llmContent: [], error: 'MCP tool failed' } }, { status: 'failed', error: 'MCP tool failed' }],
    ['read_file of a file whose content looks like a failed result', { ...base, tool_name: 'read_file', tool_input: { file_path: '/a.json' }, tool_response: { llmContent: JSON.stringify(mcpError), returnDisplay: '' } }, { status: 'ok' }],
  ])('%s', async (_label, payload, expected) => {
    expect(await after(gemini, payload)).toEqual(expected);
  });
});

describe('Cursor: postToolUseFailure, and an MCP result in tool_output', () => {
  const base = { conversation_id: 'c', tool_use_id: 'u', cwd: '/w' };
  it.each([
    ['postToolUseFailure of Read', { ...base, hook_event_name: 'postToolUseFailure', tool_name: 'Read', tool_input: { file_path: '/nope' }, error_message: 'ENOENT' }, { status: 'failed', error: 'ENOENT' }],
    ['postToolUse of an MCP tool with isError', { ...base, hook_event_name: 'postToolUse', tool_name: 'MCP:search', tool_input: {}, tool_output: JSON.stringify(mcpError) }, { status: 'failed', error: 'rate limited by the server' }],
    ['postToolUse of an MCP tool with isError: false', { ...base, hook_event_name: 'postToolUse', tool_name: 'MCP:search', tool_input: {}, tool_output: JSON.stringify(mcpOk) }, { status: 'ok' }],
    ['postToolUse of Read (the event says it succeeded)', { ...base, hook_event_name: 'postToolUse', tool_name: 'Read', tool_input: { file_path: '/a' }, tool_output: JSON.stringify({ content: '{"isError":true}' }) }, { status: 'ok' }],
  ])('%s', async (_label, payload, expected) => {
    expect(await after(cursor, payload)).toEqual(expected);
  });
});

describe('Hermes: the result JSON of post_tool_call', () => {
  const base = { session_id: 's', hook_event_name: 'post_tool_call', cwd: '/w' };
  it.each([
    ['read_file error', { ...base, tool_name: 'read_file', tool_input: { path: '/nope' }, extra: { tool_call_id: 'h', result: JSON.stringify({ error: 'File not found: /nope' }) } }, { status: 'failed', error: 'File not found: /nope' }],
    ['an MCP tool with success: false', { ...base, tool_name: 'mcp_db_query', tool_input: {}, extra: { tool_call_id: 'h', result: JSON.stringify({ success: false, output: 'denied' }) } }, { status: 'failed', error: 'denied' }],
    ['read_file content', { ...base, tool_name: 'read_file', tool_input: { path: '/a' }, extra: { tool_call_id: 'h', result: JSON.stringify({ content: 'hello' }) } }, { status: 'ok' }],
    ['plain text (cannot be told)', { ...base, tool_name: 'web_extract', tool_input: {}, extra: { tool_call_id: 'h', result: 'some page' } }, { status: 'unknown' }],
    ['no result', { ...base, tool_name: 'web_extract', tool_input: {}, extra: { tool_call_id: 'h' } }, { status: 'unknown' }],
  ])('%s', async (_label, payload, expected) => {
    expect(await after(hermes, payload)).toEqual(expected);
  });
});

describe('resultOutcome (the reader every dialect shares)', () => {
  it('never throws and says failed only for a stated failure, ok only for a stated success', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.json(), fc.string()), (value) => {
        const outcome = payloadReaders.resultOutcome(value);
        if (outcome === undefined) return;
        const parsed = typeof value === 'string' ? JSON.parse(value) : value;
        const o = parsed as Record<string, unknown>;
        if (outcome.status === 'failed') expect(o.isError === true || o.is_error === true || o.success === false || (o.error !== undefined && o.error !== null && o.error !== '')).toBe(true);
        else expect(o.isError === false || o.is_error === false || o.success === true).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('through the hook: the Codex MCP failure lands in the marker', () => {
  let tmp: ReturnType<typeof tempDir>;
  let host: CordonHost;
  beforeEach(async () => {
    tmp = tempDir('cordon-tool-failures-');
    host = await hostWithDialects(tmp.dir);
  });
  afterEach(() => tmp.cleanup());

  it('exit_status failed with the error text; an undecidable one unknown', async () => {
    const base = { session_id: 'mcp-1', hook_event_name: 'PostToolUse', tool_name: 'mcp__github__search', tool_input: { q: 'x' }, cwd: '/w' };
    await handleHookPayload({ ...base, tool_use_id: 'a', tool_response: mcpError }, { host, agent: 'codex', env: {} });
    await handleHookPayload({ ...base, tool_use_id: 'b', tool_response: 'text' }, { host, agent: 'codex', env: {} });
    const { markers } = readMarkers(join(sessionDir(tmp.dir, 'mcp-1'), 'markers.jsonl'));
    expect(markers.map((m) => [m.call_key, m.tool, m.exit_status, m.error])).toEqual([
      ['a', 'mcp', 'failed', 'rate limited by the server'],
      ['b', 'mcp', 'unknown', undefined],
    ]);
  });
});
