import { describe, expect, it } from 'vitest';
import type { CordonApi, DialectEntry, ToolCall } from '@cordon/plugin-api';
import { dialectContext } from '../../../packages/host/src/hot/dialect-context.js';
import { redactText } from '../../../packages/host/src/output/redact.js';
import { aiderDialect } from '../src/dialect/dialect.js';
import { aiderDialectEntry } from '../src/dialect/entry.js';
import { register } from '../src/index.js';

const start = { hook_event_name: 'shell_start', session_id: 'wrap-1-2', call_id: 'sh-9', command: 'pytest -q', cwd: '/w' };

describe('aider dialect (shell shim payloads)', () => {
  it('turns shell_start and shell_end into tool events keyed by the shim call id', async () => {
    expect(await aiderDialect.parse(start, dialectContext({}))).toEqual({ kind: 'tool.before', nativeEvent: 'shell_start', sessionId: 'wrap-1-2', cwd: '/w', toolName: 'shell', toolInput: { command: 'pytest -q' }, callId: 'sh-9' });
    expect(await aiderDialect.parse({ ...start, hook_event_name: 'shell_end', exit_code: 1, duration_ms: 1234 }, dialectContext({}))).toMatchObject({ kind: 'tool.after', status: 'failed', exitCode: 1, durationMs: 1234, callId: 'sh-9' });
    expect(await aiderDialect.parse({ ...start, hook_event_name: 'shell_end', exit_code: 0 }, dialectContext({}))).toMatchObject({ status: 'ok', exitCode: 0 });
    expect(await aiderDialect.parse({ ...start, hook_event_name: 'shell_end' }, dialectContext({}))).toMatchObject({ status: 'unknown' });
  });

  it('ignores other events and survives odd types', async () => {
    expect(await aiderDialect.parse({ hook_event_name: 'PreToolUse' }, dialectContext({}))).toBeUndefined();
    expect(await aiderDialect.parse({ hook_event_name: 'shell_start', session_id: 5, command: {} }, dialectContext({}))).toMatchObject({ sessionId: '', toolInput: { command: '' } });
  });

  it('writes deny and rewrite decisions as one JSON line for the shim', () => {
    const call = { toolInput: { command: 'rm -rf /' } } as unknown as ToolCall;
    expect(aiderDialect.reply({ kind: 'deny', reason: 'no' }, call)).toEqual({ stdout: '{"decision":"deny","reason":"no"}\n', exitCode: 0 });
    expect(aiderDialect.reply({ kind: 'rewrite', toolInput: { command: 'echo safe' } }, call).stdout).toBe('{"decision":"rewrite","command":"echo safe"}\n');
  });

  it('names the agent pid through CORDON_WRAP_AGENT_PID and claims its payloads when sniffing', () => {
    expect(aiderDialect.agentPidEnv).toBe('CORDON_WRAP_AGENT_PID');
    expect(aiderDialect.canonicalTool('shell', {})).toBe('shell');
    expect(aiderDialectEntry.sniff!(start, {})).toBe(1);
    expect(aiderDialectEntry.sniff!({ hook_event_name: 'PreToolUse' }, {})).toBe(0);
  });

  // The shim prints a deny reason as `cordon: command refused: <reason>` on the agent's terminal;
  // a policy that quotes the refused command put its password there. The plugin hands the host's
  // redaction (api.services.redact) to the dialect, which applies it to the reason only.
  it('writes a deny reason with its secrets as *** through the host redaction the plugin registers with; a rewrite stays as given', async () => {
    let entry: DialectEntry | undefined;
    const api = { services: { redact: { command: redactText, argv: () => [] } }, dialects: { register: (e: DialectEntry) => (entry = e) } } as unknown as CordonApi;
    (await register()).apply(api);
    const dialect = await entry!.load();
    const call = { toolInput: { command: 'x' } } as unknown as ToolCall;
    const reason = "blocked `curl -u admin:hunter2 -H 'Authorization: Bearer abc.def' https://x && mysql -phunter3 db`";
    expect(JSON.parse(dialect.reply({ kind: 'deny', reason }, call).stdout)).toEqual({ decision: 'deny', reason: "blocked `curl -u admin:*** -H 'Authorization: Bearer ***' https://x && mysql -p*** db`" });
    const rewrite = { kind: 'rewrite', toolInput: { command: 'mysql -phunter3 db' } } as const;
    expect(JSON.parse(dialect.reply(rewrite, call).stdout)).toEqual({ decision: 'rewrite', command: 'mysql -phunter3 db' });
    // A host without the service: the reason as it is.
    const bare = await aiderDialectEntry.load();
    expect(JSON.parse(bare.reply({ kind: 'deny', reason }, call).stdout).reason).toBe(reason);
  });
});
