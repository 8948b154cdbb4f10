import type { HookReply, ToolResult } from '@cordon/plugin-api';

/**
 * Writes after-call feedback the way Codex reads PostToolUse output (the Codex hooks docs, the
 * `post-tool-use.command.output` schema of `codex-rs/hooks`; live with codex-cli 0.171.0): exit 0
 * with `hookSpecificOutput.additionalContext`, which Codex records as extra context for the model
 * beside the tool's output (unlike `decision: "block"`, which replaces the output).
 */
export function replyAfterCodex(text: string, result: ToolResult): HookReply | undefined {
  if (result.call.nativeEvent !== 'PostToolUse') return undefined;
  return { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: text } }), exitCode: 0 };
}
