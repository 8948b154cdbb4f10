import type { HookReply, ToolResult } from '@cordon/plugin-api';

/**
 * Writes after-call feedback the way Gemini CLI reads AfterTool output (the Gemini CLI hooks
 * reference, `AfterTool`: "`hookSpecificOutput.additionalContext`: text that is appended to the
 * tool result for the agent"; live with 0.61.0, which appends it to the function response inside
 * `<hook_context>…</hook_context>`). Exit 0 and JSON only on stdout (plain text would become a
 * `systemMessage`).
 */
export function replyAfterGemini(text: string, result: ToolResult): HookReply | undefined {
  if (result.call.nativeEvent !== 'AfterTool') return undefined;
  return { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: text } }), exitCode: 0 };
}
