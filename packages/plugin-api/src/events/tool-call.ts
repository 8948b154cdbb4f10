/**
 * Canonical tool-call events: what every agent dialect normalises its native hook payload into
 * (alias tables: research/hook-dialects.md §7).
 */

/** Agent-neutral tool family (research/hook-dialects.md §7.3). */
export type CanonicalTool = 'shell' | 'read' | 'write' | 'edit' | 'search' | 'web' | 'subagent' | 'mcp' | 'other';

/** A tool call about to run, as fired on `beforeToolCall`. */
export interface ToolCall {
  /** Dialect name, equal to the plugin name: `claude-code`, `codex`, `gemini`, `cursor`, `hermes`, `aider`. */
  readonly agent: string;
  /** The agent's session id, unsanitised (sanitise before naming anything on disk). */
  readonly sessionId: string;
  /** The agent's own call id, or a stable hash of tool and input when the agent has none (Gemini). */
  readonly callKey: string;
  /** Native tool name, e.g. `Bash`, `run_shell_command`, `apply_patch`. */
  readonly toolName: string;
  /** Agent-neutral family of {@link toolName}. */
  readonly canonicalTool: CanonicalTool;
  /** Native tool input object, unchanged. */
  readonly toolInput: Readonly<Record<string, unknown>>;
  /** Shell command (or a one-line summary of the input) for reports; at most 500 characters. */
  readonly command?: string;
  /** Working directory reported by the agent. */
  readonly cwd?: string;
  /** PID of the agent process (from `CLAUDE_PID` or the ancestry walk), when known. */
  readonly agentPid?: number;
  /** Native event name, e.g. `PreToolUse`, `BeforeTool`, `pre_tool_call`. */
  readonly nativeEvent: string;
  /** The raw payload as parsed from stdin. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/**
 * What a `beforeToolCall` tap may answer. The first non-`undefined` answer wins (bail hook);
 * the dialect writes it back in the agent's own format.
 */
export type ToolDecision =
  | { readonly kind: 'deny'; readonly reason: string; readonly by?: string }
  | { readonly kind: 'rewrite'; readonly toolInput: Readonly<Record<string, unknown>>; readonly reason?: string; readonly by?: string };

/** A finished tool call, as threaded through `afterToolCall` (waterfall: taps may annotate it). */
export interface ToolResult {
  /** The call this result ends (same `callKey` as its start). */
  readonly call: ToolCall;
  /** `ok` when the agent reported success; `failed` for Claude's `PostToolUseFailure` and equivalents. */
  readonly status: 'ok' | 'failed';
  /** Exit code of a shell call when the agent reports one (Codex does not). */
  readonly exitCode?: number;
  /** Duration reported by the agent in ms, when it reports one. */
  readonly durationMs?: number;
  /** Error text for failed calls, truncated to 2,000 characters. */
  readonly error?: string;
  /** Free-form annotations added by taps. */
  readonly annotations?: Readonly<Record<string, unknown>>;
}
