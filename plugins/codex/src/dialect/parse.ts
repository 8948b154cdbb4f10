import type { NativeEvent, PayloadReaders } from '@cordon/plugin-api';
import { exitCodeFromRollout } from './rollout.js';
import { canonicalTool } from './tools.js';

/** Codex lifecycle events cordon records (the Codex hooks docs). `Stop` ends a turn, not the session. */
const LIFECYCLE: Readonly<Record<string, 'session.start' | 'session.end' | 'turn.start' | 'turn.end'>> = {
  SessionStart: 'session.start',
  SessionEnd: 'session.end',
  UserPromptSubmit: 'turn.start',
  Stop: 'turn.end',
};

/** `Exit code: N` heading an `apply_patch` response (fixture codex.PostToolUse.apply_patch). */
const PATCH_EXIT = /^Exit code: (\d+)\n/;

/** How often and how long to look for a shell call's exit code in the rollout (Codex writes it asynchronously). */
const ROLLOUT_TRIES = 4;
const ROLLOUT_WAIT_MS = 25;

/**
 * Normalises a Codex hook payload (the Codex hooks docs). Codex has no failure event: a failing call
 * still fires `PostToolUse`, whose `tool_response` is the output text without an exit code. The
 * exit code is read from the text when Codex put one there (`apply_patch`: `Exit code: N`), else
 * for shell calls (whose response is bare output) from the rollout transcript (through the
 * host's non-blocking `fileTail`). Any other tool (MCP `mcp__…`, `view_image`, …) is failed or ok
 * when its response is a structured result that says so (an MCP result's `isError`). Whatever cannot be told is `unknown`, never guessed.
 * Fields are read with the host's never-throwing readers (`DialectContext.read`).
 */
export async function parseCodexPayload(p: Readonly<Record<string, unknown>>, { obj, str, fileTail, resultOutcome }: PayloadReaders): Promise<NativeEvent | undefined> {
  const nativeEvent = str(p, 'hook_event_name') ?? '';
  const cwd = str(p, 'cwd');
  const common = { nativeEvent, sessionId: str(p, 'session_id') ?? '', ...(cwd !== undefined ? { cwd } : {}) };
  const lifecycle = Object.hasOwn(LIFECYCLE, nativeEvent) ? LIFECYCLE[nativeEvent] : undefined;
  if (lifecycle) return { kind: lifecycle, ...common };
  if (nativeEvent !== 'PreToolUse' && nativeEvent !== 'PostToolUse') return undefined;
  const callId = str(p, 'tool_use_id');
  const toolName = str(p, 'tool_name') ?? '';
  const toolInput = obj(p, 'tool_input') ?? {};
  const tool = { ...common, toolName, toolInput, ...(callId !== undefined ? { callId } : {}) };
  if (nativeEvent === 'PreToolUse') return { kind: 'tool.before', ...tool };
  const response = typeof p.tool_response === 'string' ? p.tool_response : p.tool_response === undefined ? '' : JSON.stringify(p.tool_response);
  const inText = toolName === 'apply_patch' ? PATCH_EXIT.exec(response) : null;
  let exitCode = inText ? Number(inText[1]) : undefined;
  const transcript = str(p, 'transcript_path');
  if (exitCode === undefined && canonicalTool(toolName, toolInput) === 'shell' && transcript && callId) {
    for (let i = 0; i < ROLLOUT_TRIES && exitCode === undefined; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, ROLLOUT_WAIT_MS));
      exitCode = exitCodeFromRollout(fileTail, transcript, callId);
    }
  }
  if (exitCode !== undefined) {
    return { kind: 'tool.after', ...tool, exitCode, status: exitCode === 0 ? 'ok' : 'failed', ...(exitCode !== 0 ? { error: response } : {}) };
  }
  const stated = toolName.startsWith('mcp__') ? resultOutcome(p.tool_response) : undefined;
  if (stated?.status === 'failed') return { kind: 'tool.after', ...tool, status: 'failed', error: stated.error ?? response };
  return { kind: 'tool.after', ...tool, status: stated?.status ?? 'unknown' };
}
