import type { Dialect, HookReply, ProcessInfo, ToolCall, ToolDecision } from '@cordon/plugin-api';
import { parseCursorPayload } from './parse.js';
import { canonicalTool } from './tools.js';
import { replyAfterCursor } from './after.js';
import { writeTargets } from './writes.js';

/**
 * Writes a decision the way Cursor reads preToolUse output (the Cursor hooks docs):
 * `{"permission":"deny","agent_message":…,"user_message":…}` with exit 0; a rewrite is
 * `updated_input` without a permission, so Cursor's own approval flow still applies.
 */
export function replyCursor(decision: ToolDecision, _call: ToolCall): HookReply {
  const out = decision.kind === 'deny' ? { permission: 'deny', agent_message: decision.reason, user_message: decision.reason } : { updated_input: decision.toolInput };
  return { stdout: JSON.stringify(out), exitCode: 0 };
}

/**
 * The agent process (the agent hook docs; docs/references.md, finding the agent pid, not verified live): `cursor-agent` (also installed as
 * `agent`), a Node app under `~/.local/share/cursor-agent/versions/…`.
 */
export function isCursorProcess(proc: ProcessInfo): boolean {
  const base = (s: string | undefined) => (s ? s.slice(s.lastIndexOf('/') + 1) : '');
  if (proc.comm === 'cursor-agent' || base(proc.exe) === 'cursor-agent' || base(proc.argv[0]) === 'cursor-agent') return true;
  return proc.argv.slice(0, 3).some((a) => a.includes('/cursor-agent/'));
}

/** The Cursor dialect. */
export const dialect: Dialect = {
  name: 'cursor',
  parse: (payload, ctx) => parseCursorPayload(payload, ctx.read),
  canonicalTool: (name) => canonicalTool(name),
  reply: replyCursor,
  replyAfter: replyAfterCursor,
  writeTargets,
  isAgentProcess: isCursorProcess,
};
