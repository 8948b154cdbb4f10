import type { Dialect, HookReply, ProcessInfo, ToolCall, ToolDecision } from '@cordon/plugin-api';
import { parseClaudePayload } from './parse.js';
import { canonicalTool } from './tools.js';
import { replyAfterClaude } from './after.js';
import { writeTargets } from './writes.js';

/**
 * Writes a decision the way Claude Code reads PreToolUse output (the Claude Code hooks reference,
 * live): exit 0 with `hookSpecificOutput.permissionDecision: "deny"` and a reason, which the
 * model sees as `PreToolUse:<tool> hook error: <reason>`; a rewrite is `updatedInput` with no
 * permission decision, so Claude's own permission flow still applies to the new input.
 */
export function replyClaude(decision: ToolDecision, _call: ToolCall): HookReply {
  const out =
    decision.kind === 'deny'
      ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: decision.reason } }
      : { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: decision.toolInput } };
  return { stdout: JSON.stringify(out), exitCode: 0 };
}

/**
 * The agent process (the agent hook docs; docs/references.md, finding the agent pid): the native `claude` binary (`…/claude-code/bin/claude.exe`
 * or a platform package's `claude`), or a `node …/cli.js` of older npm builds.
 */
export function isClaudeProcess(proc: ProcessInfo): boolean {
  const base = (s: string | undefined) => (s ? s.slice(s.lastIndexOf('/') + 1) : '');
  if (proc.comm === 'claude' || /^claude(\.exe)?$/.test(base(proc.exe)) || /^claude(\.exe)?$/.test(base(proc.argv[0]))) return true;
  return base(proc.exe) === 'node' && proc.argv.some((a) => /@anthropic-ai\/claude-code\//.test(a));
}

/** The Claude Code dialect. */
export const dialect: Dialect = {
  name: 'claude-code',
  parse: (payload, ctx) => parseClaudePayload(payload, ctx.read),
  canonicalTool: (name) => canonicalTool(name),
  reply: replyClaude,
  replyAfter: replyAfterClaude,
  writeTargets,
  agentPidEnv: 'CLAUDE_PID',
  isAgentProcess: isClaudeProcess,
};
