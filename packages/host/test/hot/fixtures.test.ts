import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CordonHost } from '../../src/bus/host.js';
import { chooseDialect } from '../../src/hot/choose-dialect.js';
import { dialectContext } from '../../src/hot/dialect-context.js';
import { handleHookPayload } from '../../src/hot/handle.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { fixtures, hostWithDialects, policyPlugin, tempDir } from './support.js';

// Every payload captured from the real agents (test/fixtures/hook-payloads) goes through the
// dialect that owns it, by --agent and by sniffing, and through the whole handler.

const ALL = fixtures();

const KIND: Record<string, string> = {
  PreToolUse: 'tool.before',
  PostToolUse: 'tool.after',
  PostToolUseFailure: 'tool.after',
  BeforeTool: 'tool.before',
  AfterTool: 'tool.after',
  SessionStart: 'session.start',
  SessionEnd: 'session.end',
  UserPromptSubmit: 'turn.start',
  BeforeAgent: 'turn.start',
  Stop: 'turn.end',
  AfterAgent: 'turn.end',
};

const MARKER: Record<string, string> = { 'tool.before': 'tool_start', 'tool.after': 'tool_end', 'session.start': 'session_start', 'session.end': 'session_end', 'turn.start': 'turn_start', 'turn.end': 'turn_end' };

let tmp: ReturnType<typeof tempDir>;
let host: CordonHost;

beforeEach(async () => {
  tmp = tempDir();
  host = await hostWithDialects(tmp.dir, [policyPlugin('BLOCKME', { kind: 'deny', reason: 'blocked in a fixture test' })]);
});
afterEach(() => tmp.cleanup());

it('covers every captured payload (41 files, three agents)', () => {
  expect(ALL.length).toBeGreaterThanOrEqual(41);
  expect(new Set(ALL.map((f) => f.agent))).toEqual(new Set(['claude-code', 'codex', 'gemini']));
});

describe.each(ALL.map((f) => [f.file, f] as const))('%s', (_file, fixture) => {
  it('is recognised by sniffing as its own agent', () => {
    const choice = chooseDialect(host, undefined, fixture.payload, {});
    expect(choice.entry?.name).toBe(fixture.agent);
  });

  it('normalises to the canonical event with the payload\'s own ids', async () => {
    const dialect = await host.dialects.require(fixture.agent).load();
    const event = await dialect.parse(fixture.payload, dialectContext({}));
    expect(event?.kind).toBe(KIND[fixture.event]);
    expect(event!.sessionId).toBe(fixture.payload.session_id);
    expect(event!.nativeEvent).toBe(fixture.event);
    expect(event!.cwd).toBe(fixture.payload.cwd);
    if (event!.kind !== 'tool.before' && event!.kind !== 'tool.after') return;
    expect(event!.toolName).toBe(fixture.payload.tool_name);
    expect(event!.toolInput).toEqual(fixture.payload.tool_input);
    expect(event!.callId).toBe(fixture.agent === 'gemini' ? undefined : fixture.payload.tool_use_id);
    if (event!.kind !== 'tool.after') return;
    const failing = fixture.variant.includes('failing-command');
    if (fixture.agent === 'codex' && event!.toolName === 'Bash') {
      // Codex gives no exit code in the payload; the captured rollout transcript is not here.
      expect(event!.status).toBe('unknown');
      expect(event!.exitCode).toBeUndefined();
    } else if (failing) {
      expect(event!.status).toBe('failed');
      expect(event!.exitCode).toBe(2);
      expect(event!.error).toContain('/nonexistent-dir-xyz');
    } else {
      expect(event!.status).toBe('ok');
      if (/Bash|run_shell_command/.test(fixture.variant) || event!.toolName === 'apply_patch') expect(event!.exitCode).toBe(0);
    }
  });

  it('goes through the hook handler: one marker, and a decision only for the blocked call', async () => {
    const outcome = await handleHookPayload(fixture.payload, { host, agent: fixture.agent, env: {} });
    const dir = sessionDir(tmp.dir, fixture.payload.session_id);
    const { markers, badLines } = readMarkers(join(dir, 'markers.jsonl'));
    expect(badLines).toEqual([]);
    expect(markers).toHaveLength(1);
    const marker = markers[0]!;
    expect(marker).toMatchObject({ v: 1, agent: fixture.agent, session_id: fixture.payload.session_id, native_event: fixture.event, hook_pid: process.pid });
    if (fixture.variant.includes('blocked-by-hook')) {
      expect(marker.event).toBe('tool_denied');
      expect(outcome.exitCode).toBe(0);
      const reply = JSON.parse(outcome.stdout);
      if (fixture.agent === 'gemini') expect(reply).toEqual({ decision: 'deny', reason: 'blocked in a fixture test' });
      else expect(reply).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'blocked in a fixture test' } });
      return;
    }
    expect(outcome).toMatchObject({ stdout: '', stderr: '', exitCode: 0 });
    expect(marker.event).toBe(MARKER[KIND[fixture.event]!]);
    if (marker.event === 'tool_start' || marker.event === 'tool_end') {
      expect(marker.tool_name).toBe(fixture.payload.tool_name);
      const input = fixture.payload.tool_input as { command?: string; file_path?: string };
      expect(marker.command).toBe(input.command ?? input.file_path);
      if (fixture.agent === 'gemini') expect(marker.call_key).toMatch(/^h:[0-9a-f]{16}\.0$/);
      else expect(marker.call_key).toBe(fixture.payload.tool_use_id);
    }
  });
});

describe('pairing of the captured Gemini calls (no call ids)', () => {
  it('gives each BeforeTool the key of its AfterTool, first in first out', async () => {
    const gemini = ALL.filter((f) => f.agent === 'gemini' && (f.event === 'BeforeTool' || f.event === 'AfterTool') && !f.variant.includes('blocked'));
    const keys = new Map<string, string[]>();
    for (const f of gemini) {
      const o = await handleHookPayload(f.payload, { host, agent: 'gemini', env: {} });
      const list = keys.get(f.variant) ?? [];
      list.push(o.marker!.call_key!);
      keys.set(f.variant, list);
    }
    for (const [variant, list] of keys) {
      expect(list, variant).toHaveLength(2);
      expect(list[0], variant).toBe(list[1]);
    }
    expect(new Set([...keys.values()].map((l) => l[0])).size).toBe(keys.size);
  });
});

