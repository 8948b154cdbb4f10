import type { NativeEvent, PayloadReaders } from '@cordon/plugin-api';

/** Claude Code lifecycle events cordon records (the Claude Code hooks reference). `Stop` is a turn end. */
const LIFECYCLE: Readonly<Record<string, 'session.start' | 'session.end' | 'turn.start' | 'turn.end'>> = {
  SessionStart: 'session.start',
  SessionEnd: 'session.end',
  UserPromptSubmit: 'turn.start',
  Stop: 'turn.end',
  StopFailure: 'turn.end',
};

/** `Exit code 2\n…` at the start of a PostToolUseFailure `error` (the Claude Code hooks reference, fixture PostToolUseFailure.Bash-failing-command). */
const EXIT_CODE = /^Exit code (\d+)\b/;

/**
 * Normalises a Claude Code hook payload (the Claude Code hooks reference): `PreToolUse` → `tool.before`;
 * `PostToolUse` → `tool.after` ok (a shell call that fires it exited 0: non-zero exits fire
 * `PostToolUseFailure` instead, live-observed; a failing non-shell tool does too), unless its
 * `tool_response` is a structured result stating failure (MCP `isError: true`: failed); `PostToolUseFailure` → `tool.after` failed with
 * its `error` and the exit code it names. Other events cordon does not record give `undefined`.
 * Fields are read with the host's never-throwing readers (`DialectContext.read`).
 */
export function parseClaudePayload(p: Readonly<Record<string, unknown>>, { num, obj, str, resultOutcome }: PayloadReaders): NativeEvent | undefined {
  const nativeEvent = str(p, 'hook_event_name') ?? '';
  const common = { nativeEvent, sessionId: str(p, 'session_id') ?? '', ...(str(p, 'cwd') !== undefined ? { cwd: str(p, 'cwd') } : {}) };
  const lifecycle = LIFECYCLE[nativeEvent];
  if (Object.hasOwn(LIFECYCLE, nativeEvent) && lifecycle) return { kind: lifecycle, ...common };
  if (nativeEvent !== 'PreToolUse' && nativeEvent !== 'PostToolUse' && nativeEvent !== 'PostToolUseFailure') return undefined;
  const callId = str(p, 'tool_use_id');
  const tool = { ...common, toolName: str(p, 'tool_name') ?? '', toolInput: obj(p, 'tool_input') ?? {}, ...(callId !== undefined ? { callId } : {}) };
  if (nativeEvent === 'PreToolUse') return { kind: 'tool.before', ...tool };
  const durationMs = num(p, 'duration_ms');
  const duration = durationMs !== undefined ? { durationMs } : {};
  if (nativeEvent === 'PostToolUseFailure') {
    const error = str(p, 'error') ?? (p.is_interrupt === true ? 'interrupted' : 'tool failed');
    const code = EXIT_CODE.exec(error);
    return { kind: 'tool.after', ...tool, status: 'failed', error, ...(code ? { exitCode: Number(code[1]) } : {}), ...duration };
  }
  const response = obj(p, 'tool_response');
  if (response?.interrupted === true) return { kind: 'tool.after', ...tool, status: 'failed', error: 'interrupted', ...duration };
  // A failing tool fires PostToolUseFailure; an MCP result that still says isError is a failure too.
  const stated = tool.toolName.startsWith('mcp__') ? resultOutcome(p.tool_response) : undefined;
  if (stated?.status === 'failed') return { kind: 'tool.after', ...tool, status: 'failed', error: stated.error ?? 'tool failed', ...duration };
  const shellOk = tool.toolName === 'Bash' ? { exitCode: 0 } : {};
  return { kind: 'tool.after', ...tool, status: 'ok', ...shellOk, ...duration };
}
