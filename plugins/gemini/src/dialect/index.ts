import type { Dialect, HookReply, ProcessInfo, ToolCall, ToolDecision } from '@cordon/plugin-api';
import { parseGeminiPayload } from './parse.js';
import { canonicalTool } from './tools.js';
import { replyAfterGemini } from './after.js';
import { writeTargets } from './writes.js';

/**
 * Writes a decision the way Gemini CLI reads BeforeTool output (the Gemini CLI hooks reference,
 * live): `{"decision":"deny","reason":…}` on stdout with exit 0, which the model sees as
 * `Tool execution blocked: <reason>`; a rewrite is `hookSpecificOutput.tool_input`, which Gemini
 * merges into the call's input.
 */
export function replyGemini(decision: ToolDecision, _call: ToolCall): HookReply {
  const out = decision.kind === 'deny' ? { decision: 'deny', reason: decision.reason } : { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: decision.toolInput } };
  return { stdout: JSON.stringify(out), exitCode: 0 };
}

/**
 * The agent process (the agent hook docs; docs/references.md, finding the agent pid): the relaunched worker `node … @google/gemini-cli/…/gemini.js`
 * that spawns hooks through `bash -c`, or a native `gemini` executable.
 */
export function isGeminiProcess(proc: ProcessInfo): boolean {
  const base = (s: string | undefined) => (s ? s.slice(s.lastIndexOf('/') + 1) : '');
  if (proc.comm === 'gemini' || base(proc.exe) === 'gemini') return true;
  return proc.argv.slice(0, 4).some((a) => /@google\/gemini-cli\/|\/gemini(\.js)?$/.test(a));
}

/** The Gemini CLI dialect. */
export const dialect: Dialect = {
  name: 'gemini',
  parse: (payload, ctx) => parseGeminiPayload(payload, ctx.read),
  canonicalTool: (name) => canonicalTool(name),
  reply: replyGemini,
  replyAfter: replyAfterGemini,
  writeTargets,
  isAgentProcess: isGeminiProcess,
};
