import type { NativeEvent, PayloadReaders } from '@cordon/plugin-api';

/**
 * Cursor lifecycle events cordon records (the Cursor hooks docs). `stop` ends a
 * turn, `beforeSubmitPrompt` starts one (both fire in the TUI only).
 */
const LIFECYCLE: Readonly<Record<string, 'session.start' | 'session.end' | 'turn.start' | 'turn.end'>> = {
  sessionStart: 'session.start',
  sessionEnd: 'session.end',
  beforeSubmitPrompt: 'turn.start',
  stop: 'turn.end',
};

/** An exit code in a parsed tool output object (`exit_code`, `exitCode`), if any. */
function exitCodeIn(output: unknown): number | undefined {
  if (!output || typeof output !== 'object') return undefined;
  const o = output as Record<string, unknown>;
  const code = o.exit_code ?? o.exitCode;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}

/**
 * Normalises a Cursor hook payload (the Cursor hooks docs). Tool events key the session as
 * `conversation_id` (lifecycle events as `session_id`); call ids may contain a newline and are
 * kept as sent. `postToolUseFailure` is a failure of the call; `postToolUse`'s `tool_output` is a
 * JSON string, whose exit code, when it has one, decides, as does an MCP result's `isError`;
 * otherwise the event itself says the call succeeded. The `before*`/`after*Execution` events
 * duplicate the tool events and are not recorded (cordon installs the tool events only).
 * Fields are read with the host's never-throwing readers (`DialectContext.read`).
 */
export function parseCursorPayload(p: Readonly<Record<string, unknown>>, { num, obj, str, resultOutcome }: PayloadReaders): NativeEvent | undefined {
  const nativeEvent = str(p, 'hook_event_name') ?? '';
  const roots = Array.isArray(p.workspace_roots) && typeof p.workspace_roots[0] === 'string' ? (p.workspace_roots[0] as string) : undefined;
  const cwd = str(p, 'cwd') ?? roots;
  const common = { nativeEvent, sessionId: str(p, 'conversation_id') ?? str(p, 'session_id') ?? '', ...(cwd !== undefined ? { cwd } : {}) };
  const lifecycle = Object.hasOwn(LIFECYCLE, nativeEvent) ? LIFECYCLE[nativeEvent] : undefined;
  if (lifecycle) return { kind: lifecycle, ...common };
  if (nativeEvent !== 'preToolUse' && nativeEvent !== 'postToolUse' && nativeEvent !== 'postToolUseFailure') return undefined;
  const callId = str(p, 'tool_use_id');
  const tool = { ...common, toolName: str(p, 'tool_name') ?? '', toolInput: obj(p, 'tool_input') ?? {}, ...(callId !== undefined ? { callId } : {}) };
  if (nativeEvent === 'preToolUse') return { kind: 'tool.before', ...tool };
  const duration = num(p, 'duration');
  const timing = duration !== undefined ? { durationMs: duration } : {};
  if (nativeEvent === 'postToolUseFailure') {
    const error = str(p, 'error_message') ?? str(p, 'error') ?? str(p, 'failure_type') ?? 'tool failed';
    return { kind: 'tool.after', ...tool, status: 'failed', error, ...timing };
  }
  let output: unknown = p.tool_output;
  if (typeof output === 'string') {
    try {
      output = JSON.parse(output);
    } catch {
      // Plain text output: no exit code to read.
    }
  }
  const exitCode = exitCodeIn(output);
  // A failing tool fires postToolUseFailure; an MCP result that still says isError is a failure too.
  const stated = exitCode === undefined && tool.toolName.startsWith('MCP') ? resultOutcome(output) : undefined;
  if (stated?.status === 'failed') return { kind: 'tool.after', ...tool, status: 'failed', error: stated.error ?? (typeof p.tool_output === 'string' ? p.tool_output : 'tool failed'), ...timing };
  if (exitCode !== undefined && exitCode !== 0) return { kind: 'tool.after', ...tool, status: 'failed', exitCode, error: typeof p.tool_output === 'string' ? p.tool_output : `exit code ${exitCode}`, ...timing };
  return { kind: 'tool.after', ...tool, status: 'ok', ...(exitCode !== undefined ? { exitCode } : {}), ...timing };
}
