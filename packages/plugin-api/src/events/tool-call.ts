/**
 * Canonical tool-call events: what every agent dialect's payload becomes before the host fires
 * `beforeToolCall` / `afterToolCall` (alias tables: the agent hook docs; docs/references.md, canonical names).
 */

/** Agent-neutral tool family (the agent hook docs; docs/references.md, canonical names). */
export type CanonicalTool = 'shell' | 'read' | 'write' | 'edit' | 'search' | 'web' | 'subagent' | 'mcp' | 'other';

/** A tool call about to run, as fired on `beforeToolCall`. */
export interface ToolCall {
  /** Dialect name, equal to the plugin name: `claude-code`, `codex`, `gemini`, `cursor`, `hermes`, `aider`. */
  readonly agent: string;
  /** The agent's session id, unsanitised (sanitise before naming anything on disk); `''` when absent. */
  readonly sessionId: string;
  /**
   * Pairs this call with its result: the agent's own call id, or, when the agent sends none
   * (Gemini), `h:<hash of session, tool and input>.<first-in-first-out ordinal>`.
   */
  readonly callKey: string;
  /** Whether {@link callKey} is the agent's id (`agent`) or computed (`hash`). */
  readonly callKeySource: 'agent' | 'hash';
  /** Native tool name, e.g. `Bash`, `run_shell_command`, `apply_patch`. */
  readonly toolName: string;
  /** Agent-neutral family of {@link toolName}. */
  readonly canonicalTool: CanonicalTool;
  /** Native tool input object, unchanged (`{}` when the agent sent none or not an object). */
  readonly toolInput: Readonly<Record<string, unknown>>;
  /**
   * The shell command (an argv joined with spaces), else the first path, pattern, URL, prompt or
   * query of the input, else its sorted-key JSON. Whole, never cut, so a policy sees everything
   * the agent will run; markers and reports store at most 2,000 characters of it. Text an agent
   * wrote: escape it before printing it.
   */
  readonly command: string;
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
 * the dialect writes it back in the agent's own format (the agent hook docs; docs/references.md, canonical names).
 * A `rewrite` carries the complete new input object.
 */
export type ToolDecision =
  | { readonly kind: 'deny'; readonly reason: string; readonly by?: string }
  | { readonly kind: 'rewrite'; readonly toolInput: Readonly<Record<string, unknown>>; readonly reason?: string; readonly by?: string };

/**
 * How a finished call ended: `failed` for Claude's `PostToolUseFailure`, Cursor's
 * `postToolUseFailure`, a non-zero exit code or an error result; `unknown` when the agent's
 * payload cannot tell (a Codex shell call whose exit code is not recoverable).
 */
export type ToolStatus = 'ok' | 'failed' | 'unknown';

/** A finished tool call, as threaded through `afterToolCall` (waterfall: taps may annotate it). */
export interface ToolResult {
  /** The call this result ends, rebuilt from the after payload (same `callKey` as its start). */
  readonly call: ToolCall;
  readonly status: ToolStatus;
  /** Exit code of a shell call when the agent reports or implies one. */
  readonly exitCode?: number;
  /** Duration reported by the agent, ms, when it reports one. */
  readonly durationMs?: number;
  /** Error text for failed calls, at most 2,000 characters. */
  readonly error?: string;
  /** Free-form annotations added by taps. */
  readonly annotations?: Readonly<Record<string, unknown>>;
  /**
   * Text for the model about this call, added by taps (and by the host's loop breaker): a tap
   * returns the result with its entry appended. The host joins the entries (blank line between)
   * and the dialect hands them to the agent in the agent's own after-call format
   * ({@link ToolFeedback}); an agent whose hook cannot feed text back gets none.
   */
  readonly feedback?: readonly ToolFeedback[];
}

/**
 * One piece of after-call feedback: plain text the model reads next to the call's result (Claude
 * Code and Codex `hookSpecificOutput.additionalContext`, Gemini CLI's AfterTool
 * `additionalContext`, Cursor's postToolUse `additional_context`; docs/hooks.md "After-call
 * feedback"). It informs, it does not refuse: the call already ran.
 */
export interface ToolFeedback {
  /** What the model is told; one or a few sentences. Must not be empty. */
  readonly text: string;
  /** Plugin (or `cordon` for the host itself) that added it, for the log and markers. */
  readonly by?: string;
}
