import type { Dialect, HookReply, ProcessInfo, ToolCall, ToolDecision } from '@cordon/plugin-api';
import { parseHermesPayload } from './parse.js';
import { canonicalTool } from './tools.js';
import { writeTargets } from './writes.js';

/**
 * Writes a decision the way Hermes reads pre_tool_call output (the Hermes hooks docs):
 * `{"decision":"block","reason":…}` (the model sees the reason as the tool error) or
 * `{"decision":"modify","tool_input":…}`, with exit 0.
 */
export function replyHermes(decision: ToolDecision, _call: ToolCall): HookReply {
  const out = decision.kind === 'deny' ? { decision: 'block', reason: decision.reason } : { decision: 'modify', tool_input: decision.toolInput };
  return { stdout: JSON.stringify(out), exitCode: 0 };
}

/**
 * The agent process (the agent hook docs; docs/references.md, finding the agent pid, from source): Hermes starts hooks without a shell, so the
 * parent is the Hermes Python process (`hermes` console script, or `python … hermes …`).
 */
export function isHermesProcess(proc: ProcessInfo): boolean {
  const base = (s: string | undefined) => (s ? s.slice(s.lastIndexOf('/') + 1) : '');
  if (proc.comm === 'hermes' || base(proc.argv[0]) === 'hermes') return true;
  return /^python/.test(base(proc.exe) || proc.comm) && proc.argv.slice(1, 4).some((a) => /(^|\/)hermes(_cli|-agent)?(\.py)?$|^hermes/.test(a));
}

/** The Hermes Agent dialect. */
export const dialect: Dialect = {
  name: 'hermes',
  parse: (payload, ctx) => parseHermesPayload(payload, ctx.read),
  canonicalTool: (name) => canonicalTool(name),
  reply: replyHermes,
  writeTargets,
  isAgentProcess: isHermesProcess,
};
