import type { Dialect, HookReply, ProcessInfo, ToolCall, ToolDecision } from '@cordon/plugin-api';
import { parseCodexPayload } from './parse.js';
import { canonicalTool } from './tools.js';
import { replyAfterCodex } from './after.js';
import { writeTargets } from './writes.js';

/**
 * Writes a decision the way Codex reads PreToolUse output (the Codex hooks docs, live):
 * exit 0 with `hookSpecificOutput.permissionDecision: "deny"` and a reason, which the model sees
 * as `Command blocked by PreToolUse hook: <reason>. Command: <cmd>`. A rewrite is `updatedInput`,
 * which Codex accepts only beside `permissionDecision: "allow"` (codex-cli 0.171.0 rejects it
 * otherwise: "PreToolUse hook returned updatedInput without permissionDecision:allow"), so on
 * Codex a rewritten call is also approved.
 */
export function replyCodex(decision: ToolDecision, _call: ToolCall): HookReply {
  const out =
    decision.kind === 'deny'
      ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: decision.reason } }
      : { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: decision.toolInput } };
  return { stdout: JSON.stringify(out), exitCode: 0 };
}

/**
 * The agent process (the agent hook docs; docs/references.md, finding the agent pid): the native `codex` binary that runs the hook through
 * `$SHELL -lc`; the npm `node …/bin/codex.js` wrapper above it is only the launcher.
 */
export function isCodexProcess(proc: ProcessInfo): boolean {
  const base = (s: string | undefined) => (s ? s.slice(s.lastIndexOf('/') + 1) : '');
  return proc.comm === 'codex' || base(proc.exe) === 'codex' || (base(proc.argv[0]) === 'codex' && base(proc.exe) !== 'node');
}

/** The Codex dialect. */
export const dialect: Dialect = {
  name: 'codex',
  parse: (payload, ctx) => parseCodexPayload(payload, ctx.read),
  canonicalTool,
  reply: replyCodex,
  replyAfter: replyAfterCodex,
  writeTargets,
  isAgentProcess: isCodexProcess,
};
