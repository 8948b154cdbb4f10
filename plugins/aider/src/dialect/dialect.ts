import type { CanonicalTool, Dialect, HookReply, NativeEvent, ToolCall, ToolDecision } from '@cordon/plugin-api';
import { AGENT_PID_ENV, SHELL_TOOL, type ShimReply } from './protocol.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The `aider` dialect: normalises the shell shim's payloads (`protocol.ts`) into tool events, so
 * each command an agent without hooks runs through `$SHELL -c` gets a `tool_start` / `tool_end`
 * pair like a hooked agent's Bash call, and writes `beforeToolCall` decisions back to the shim.
 *
 * `redact` (the host's `api.services.redact.command`) is applied to a deny reason before the
 * shim prints it as `cordon: command refused: <reason>` on the agent's terminal, where the agent
 * also reads it: a policy's reason may quote the refused command, secrets and all. Without it
 * (a host older than the service) the reason goes as it is. A rewritten command is never
 * redacted: the shim runs it.
 */
export function createAiderDialect(redact: (text: string) => string = (text) => text): Dialect {
  return {
    name: 'aider',
    agentPidEnv: AGENT_PID_ENV,

    parse(payload): NativeEvent | undefined {
      const event = str(payload.hook_event_name);
      if (event !== 'shell_start' && event !== 'shell_end') return undefined;
      const base = {
        nativeEvent: event,
        sessionId: str(payload.session_id) ?? '',
        ...(str(payload.cwd) !== undefined ? { cwd: str(payload.cwd)! } : {}),
        toolName: SHELL_TOOL,
        toolInput: { command: str(payload.command) ?? '' },
        ...(str(payload.call_id) !== undefined ? { callId: str(payload.call_id)! } : {}),
      };
      if (event === 'shell_start') return { kind: 'tool.before', ...base };
      const exitCode = num(payload.exit_code);
      const durationMs = num(payload.duration_ms);
      return {
        kind: 'tool.after',
        ...base,
        status: exitCode === undefined ? 'unknown' : exitCode === 0 ? 'ok' : 'failed',
        ...(exitCode !== undefined ? { exitCode } : {}),
        ...(durationMs !== undefined ? { durationMs } : {}),
      };
    },

    canonicalTool(toolName): CanonicalTool {
      return toolName === SHELL_TOOL ? 'shell' : 'other';
    },

    reply(decision: ToolDecision, _call: ToolCall): HookReply {
      let reply: ShimReply;
      if (decision.kind === 'deny') reply = { decision: 'deny', reason: redact(decision.reason) };
      else reply = { decision: 'rewrite', command: str(decision.toolInput.command) ?? '' };
      return { stdout: JSON.stringify(reply) + '\n', exitCode: 0 };
    },

    // The agent's pid always comes from the environment the shim sets; the ancestry walk cannot
    // name it (the wrapped command may itself be a shell, which the walk skips).
    isAgentProcess: () => false,
  };
}

/** The dialect without a redaction: deny reasons go to the shim as they are. */
export const aiderDialect: Dialect = createAiderDialect();
