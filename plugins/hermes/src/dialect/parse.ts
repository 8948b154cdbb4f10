import type { NativeEvent, PayloadReaders } from '@cordon/plugin-api';

/**
 * Hermes lifecycle events cordon records (the Hermes hooks docs). The session ends
 * at `on_session_finalize`; `on_session_end` fires after every `run_conversation()`, so it is a
 * turn end, as is `post_llm_call`'s counterpart `pre_llm_call` a turn start.
 */
const LIFECYCLE: Readonly<Record<string, 'session.start' | 'session.end' | 'turn.start' | 'turn.end'>> = {
  on_session_start: 'session.start',
  on_session_finalize: 'session.end',
  pre_llm_call: 'turn.start',
  on_session_end: 'turn.end',
};

/**
 * The outcome a post_tool_call `extra.result` states. Hermes' tools return a JSON object text
 * and report a failure in it (`error`, `success: false`, a non-zero exit code), so an object
 * without any of them is ok; plain text, a non-object or no result at all cannot be told and is
 * `unknown`.
 */
function outcome(result: unknown): { status: 'ok' | 'failed' | 'unknown'; exitCode?: number; error?: string } {
  let value = result;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return { status: 'unknown' };
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { status: 'unknown' };
  const o = value as Record<string, unknown>;
  const raw = o.exit_code ?? o.exitCode ?? o.returncode;
  const exitCode = typeof raw === 'number' && Number.isInteger(raw) ? raw : undefined;
  const error = typeof o.error === 'string' && o.error !== '' ? o.error : o.error && typeof o.error === 'object' ? JSON.stringify(o.error) : undefined;
  if (error !== undefined || o.success === false || (exitCode !== undefined && exitCode !== 0)) {
    return { status: 'failed', ...(exitCode !== undefined ? { exitCode } : {}), error: error ?? (typeof o.output === 'string' && o.output !== '' ? o.output : `exit code ${exitCode ?? 'unknown'}`) };
  }
  return { status: 'ok', ...(exitCode !== undefined ? { exitCode } : {}) };
}

/**
 * Normalises a Hermes Agent shell-hook payload (the Hermes hooks docs, `agent/shell_hooks.py`): the call id,
 * the result (a JSON string) and the duration are nested under `extra`; a result carrying `error`,
 * `success: false` or a non-zero exit code is a failure, one that is not a JSON object `unknown`.
 * Fields are read with the host's never-throwing readers (`DialectContext.read`).
 */
export function parseHermesPayload(p: Readonly<Record<string, unknown>>, { num, obj, str }: PayloadReaders): NativeEvent | undefined {
  const nativeEvent = str(p, 'hook_event_name') ?? '';
  const cwd = str(p, 'cwd');
  const common = { nativeEvent, sessionId: str(p, 'session_id') ?? '', ...(cwd !== undefined ? { cwd } : {}) };
  const lifecycle = Object.hasOwn(LIFECYCLE, nativeEvent) ? LIFECYCLE[nativeEvent] : undefined;
  if (lifecycle) return { kind: lifecycle, ...common };
  if (nativeEvent !== 'pre_tool_call' && nativeEvent !== 'post_tool_call') return undefined;
  const extra = obj(p, 'extra') ?? {};
  const callId = str(extra, 'tool_call_id');
  const tool = { ...common, toolName: str(p, 'tool_name') ?? '', toolInput: obj(p, 'tool_input') ?? {}, ...(callId !== undefined ? { callId } : {}) };
  if (nativeEvent === 'pre_tool_call') return { kind: 'tool.before', ...tool };
  const duration = num(extra, 'duration_ms');
  return { kind: 'tool.after', ...tool, ...outcome(extra.result), ...(duration !== undefined ? { durationMs: duration } : {}) };
}
