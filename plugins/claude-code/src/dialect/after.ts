import type { HookReply, ToolResult } from '@cordon/plugin-api';

/**
 * Writes after-call feedback the way Claude Code reads PostToolUse and PostToolUseFailure output
 * (the Claude Code hooks reference, "PostToolUse decision control" and "PostToolUseFailure"; live
 * with 2.1.332): exit 0 with `hookSpecificOutput.additionalContext`, whose `hookEventName` must be
 * the event that fired. Claude Code adds the text to the conversation as hook context beside the
 * tool result, so the model reads it in its next request. (`decision: "block"` would also reach
 * the model, but is shown to the user as a hook error.)
 */
export function replyAfterClaude(text: string, result: ToolResult): HookReply | undefined {
  const event = result.call.nativeEvent;
  if (event !== 'PostToolUse' && event !== 'PostToolUseFailure') return undefined;
  return { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }), exitCode: 0 };
}
