import type { ToolCall, ToolDecision, ToolResult } from '../events/tool-call.js';

/**
 * A registered agent dialect. Registration is cheap; the dialect module itself is loaded lazily
 * by {@link DialectEntry.load} so the hot path imports only the one it needs.
 */
export interface DialectEntry {
  /** Agent name, equal to the plugin name (`claude-code`, `codex`, `gemini`, `cursor`, `hermes`). */
  readonly name: string;
  /**
   * Cheap test on a parsed payload used when `cordon hook` runs without `--agent`.
   * Must not throw; returns a confidence: 0 (not mine) to 1 (certainly mine).
   */
  readonly sniff?: (payload: Readonly<Record<string, unknown>>) => number;
  /** Loads the dialect implementation. */
  readonly load: () => Promise<Dialect>;
}

/** A normalised hook event (research/hook-dialects.md §7.1). */
export type HookEvent =
  | { readonly type: 'tool.before'; readonly call: ToolCall }
  | { readonly type: 'tool.after'; readonly result: ToolResult }
  | { readonly type: 'session.start' | 'session.end' | 'turn.start' | 'turn.end'; readonly sessionId: string; readonly nativeEvent: string; readonly cwd?: string; readonly agentPid?: number; readonly raw: Readonly<Record<string, unknown>> };

/** What the hook process writes back to the agent. */
export interface HookReply {
  /** Text for stdout; empty string prints nothing. */
  readonly stdout: string;
  /** Exit code; 0 unless the dialect's only blocking channel is exit 2. */
  readonly exitCode: number;
  /** Text for stderr (fed to the model by some agents on exit 2). */
  readonly stderr?: string;
}

/** Context a dialect gets when it normalises a payload. */
export interface DialectContext {
  /** Process environment of the hook process. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** PID of the hook process's parent. */
  readonly ppid: number;
}

/** An agent dialect: payload normaliser and decision writer. */
export interface Dialect {
  /** Agent name. */
  readonly name: string;
  /** Normalises a native payload; `undefined` for events cordon ignores. Never throws on odd input. */
  parse(payload: Readonly<Record<string, unknown>>, ctx: DialectContext): HookEvent | undefined;
  /** Writes a `beforeToolCall` decision in the agent's own format (research/hook-dialects.md §7.4). */
  reply(decision: ToolDecision, call: ToolCall): HookReply;
}
