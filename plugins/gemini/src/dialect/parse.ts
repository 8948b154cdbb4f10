import type { NativeEvent, PayloadReaders } from '@cordon/plugin-api';
import { geminiShellExit } from './shell-result.js';
import { canonicalTool } from './tools.js';

/** Gemini CLI lifecycle events cordon records (the Gemini CLI hooks reference). `AfterAgent` ends a turn. */
const LIFECYCLE: Readonly<Record<string, 'session.start' | 'session.end' | 'turn.start' | 'turn.end'>> = {
  SessionStart: 'session.start',
  SessionEnd: 'session.end',
  BeforeAgent: 'turn.start',
  AfterAgent: 'turn.end',
};

/** Error text of a tool response's `error` field (a string or `{message}`), if any. */
function errorOf(response: Record<string, unknown>): string | undefined {
  const e = response.error;
  if (typeof e === 'string' && e !== '') return e;
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return (e as { message: string }).message;
  return undefined;
}

/**
 * Normalises a Gemini CLI hook payload (the Gemini CLI hooks reference). There is no call id: the host pairs
 * `BeforeTool` and `AfterTool` first-in-first-out on (session, tool, input). A failing shell call
 * still fires `AfterTool`; its exit code is Gemini's own `Exit Code: N` line of `llmContent`
 * (absent when it exited 0), read only after the command's output (shell-result.ts
 * `geminiShellExit`); a `Signal: N` line read so makes it failed, its error naming the signal
 * (`terminated by signal SIGKILL`); where the output could have written those lines itself, the
 * outcome is `unknown`. A response `error` makes any call a failure (Gemini sets it on every failed
 * tool result, an MCP result with `isError` included, so a result without one is ok).
 * Fields are read with the host's never-throwing readers (`DialectContext.read`).
 */
export function parseGeminiPayload(p: Readonly<Record<string, unknown>>, { obj, str }: PayloadReaders): NativeEvent | undefined {
  const nativeEvent = str(p, 'hook_event_name') ?? '';
  const cwd = str(p, 'cwd');
  const common = { nativeEvent, sessionId: str(p, 'session_id') ?? '', ...(cwd !== undefined ? { cwd } : {}) };
  const lifecycle = Object.hasOwn(LIFECYCLE, nativeEvent) ? LIFECYCLE[nativeEvent] : undefined;
  if (lifecycle) return { kind: lifecycle, ...common };
  if (nativeEvent !== 'BeforeTool' && nativeEvent !== 'AfterTool') return undefined;
  const input = obj(p, 'tool_input');
  // A tool_input that is not an object (a string, an array, null, or none) is kept as sent for the call key: `{}` would give different calls one key.
  const tool = { ...common, toolName: str(p, 'tool_name') ?? '', toolInput: input ?? {}, ...(input === undefined ? { rawToolInput: Object.hasOwn(p, 'tool_input') ? p.tool_input : undefined } : {}) };
  if (nativeEvent === 'BeforeTool') return { kind: 'tool.before', ...tool };
  const response = obj(p, 'tool_response') ?? {};
  const error = errorOf(response);
  const llm = typeof response.llmContent === 'string' ? response.llmContent : '';
  if (canonicalTool(tool.toolName) === 'shell' && tool.toolName === 'run_shell_command') {
    const read = geminiShellExit(response.llmContent, response.returnDisplay);
    if (read.kind === 'ambiguous') return error !== undefined ? { kind: 'tool.after', ...tool, status: 'failed', error } : { kind: 'tool.after', ...tool, status: 'unknown' };
    // A signal ended it: failed, with no exit code of its own (Gemini writes none for it).
    if (read.kind === 'read' && read.signal !== undefined) return { kind: 'tool.after', ...tool, status: 'failed', ...(read.exitCode !== 0 ? { exitCode: read.exitCode } : {}), error: error ?? `terminated by signal ${read.signal}` };
    const written = read.kind === 'read' && read.exitCode !== 0 ? read.exitCode : undefined;
    const exitCode = written ?? (error === undefined ? 0 : undefined);
    if (exitCode !== undefined && exitCode !== 0) return { kind: 'tool.after', ...tool, status: 'failed', exitCode, error: error ?? (typeof response.returnDisplay === 'string' && response.returnDisplay !== '' ? response.returnDisplay : llm) };
    if (error !== undefined) return { kind: 'tool.after', ...tool, status: 'failed', error };
    return { kind: 'tool.after', ...tool, status: 'ok', exitCode: 0 };
  }
  // Gemini sets `error` on every failed tool result (MCP results with isError included), so a result without one is ok.
  return error !== undefined ? { kind: 'tool.after', ...tool, status: 'failed', error } : { kind: 'tool.after', ...tool, status: 'ok' };
}
