import type { HookReply, ToolResult } from '@cordon/plugin-api';

/**
 * Writes after-call feedback the way Cursor reads postToolUse output (the Cursor hooks docs:
 * `additional_context`, text added to the conversation beside the tool's result). Cursor's docs
 * give the same field for postToolUseFailure; neither has been tried live here (no Cursor CLI in
 * the test machines).
 */
export function replyAfterCursor(text: string, result: ToolResult): HookReply | undefined {
  const event = result.call.nativeEvent;
  if (event !== 'postToolUse' && event !== 'postToolUseFailure') return undefined;
  return { stdout: JSON.stringify({ additional_context: text }), exitCode: 0 };
}
