import type { AgentOutput, AgentReport } from '@cordon/plugin-api';

/**
 * Reads the JSON events `codex exec --json` prints, one per stdout line (Codex 0.171.0):
 * `thread.started {thread_id}`, `turn.started`, `item.started`/`item.completed {item}`,
 * `turn.completed {usage}`, `turn.failed {error: {message}}`, `error {message}`.
 *
 * The attempt failed, by Codex's own account, when a turn failed, an `error` event came, or no
 * turn completed. Items of type `command_execution`, `file_change` and `mcp_tool_call` count as
 * tool calls; the last `agent_message` is the message. Codex reports no cost.
 */
export function parseCodexEvents(output: AgentOutput): AgentReport {
  let sessionId: string | undefined;
  let turns = 0;
  let failedTurns = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let toolCalls = 0;
  let message: string | undefined;
  let lastTurnEvent: string | undefined;
  const errors: string[] = [];
  let events = 0;
  for (const line of output.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    let event: Record<string, any>;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    events++;
    switch (event.type) {
      case 'thread.started':
        if (typeof event.thread_id === 'string') sessionId = event.thread_id;
        break;
      case 'turn.completed':
        turns++;
        lastTurnEvent = event.type;
        inputTokens += count(event.usage?.input_tokens);
        outputTokens += count(event.usage?.output_tokens);
        break;
      case 'turn.failed':
        failedTurns++;
        lastTurnEvent = event.type;
        errors.push(readable(event.error?.message));
        break;
      case 'error':
        errors.push(readable(event.message));
        break;
      case 'item.completed': {
        const item = event.item ?? {};
        if (item.type === 'agent_message' && typeof item.text === 'string') message = item.text;
        else if (item.type === 'command_execution' || item.type === 'file_change' || item.type === 'mcp_tool_call') toolCalls++;
        break;
      }
    }
  }
  if (events === 0) return { ok: false, unreported: true, error: 'printed no JSON events on stdout' };
  const unique = [...new Set(errors.filter(Boolean))];
  const ok = failedTurns === 0 && unique.length === 0 && turns > 0;
  return {
    ok,
    // Events but no turn and no error: Codex said nothing failed, so this is not its error.
    ...(ok ? {} : unique.length > 0 || failedTurns > 0 ? { error: unique.join('; ') || 'a turn failed' } : { unreported: true, error: 'no turn completed' }),
    status: lastTurnEvent ?? 'no turn',
    ...(sessionId ? { sessionId } : {}),
    turns,
    inputTokens,
    outputTokens,
    toolCalls,
    ...(message !== undefined ? { message } : {}),
  };
}

/** Codex wraps a provider's JSON error body in the message; show the provider's own message. */
function readable(message: unknown): string {
  if (typeof message !== 'string') return '';
  try {
    const body = JSON.parse(message);
    const inner = body?.error?.message ?? body?.message;
    if (typeof inner === 'string' && inner !== '') return inner;
  } catch {
    // Not JSON: the message is already text.
  }
  return message;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
