import type { CanonicalTool, ToolCall, ToolDecision, ToolResult, ToolStatus } from '../events/tool-call.js';
import type { HookInstaller } from './hook-installer.js';

/**
 * A registered agent dialect. Registration is cheap; the implementation is loaded lazily by
 * {@link DialectEntry.load} (hot path) and {@link DialectEntry.loadInstaller}
 * (`cordon install-hooks`), so `cordon hook` imports exactly one dialect and no writer code.
 */
export interface DialectEntry {
  /** Agent name, equal to the plugin name (`claude-code`, `codex`, `gemini`, `cursor`, `hermes`). */
  readonly name: string;
  /**
   * Cheap test used when `cordon hook` runs without `--agent`: 0 (not mine) to 1 (certainly
   * mine). Gets the parsed payload and the hook's environment; must not throw or do I/O.
   */
  readonly sniff?: (payload: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string | undefined>>) => number;
  /** Loads the payload normaliser and decision writer. */
  readonly load: () => Promise<Dialect>;
  /** Loads the config writer for `cordon install-hooks` / `uninstall-hooks`, when the agent has hooks. */
  readonly loadInstaller?: () => Promise<HookInstaller>;
}

/** Canonical hook event kinds (the agent hook docs; docs/references.md, canonical names). `turn.end` is `Stop`: never a session end. */
/**
 * How a tool call changes the file at a path, which decides what a symbolic link there means
 * (path_resolution(7); docs/envelopes.md "The live envelope"). Links among the path's parent
 * directories are always followed; the kinds differ only in its last component:
 *
 * - `write`: the file is opened and written in place (`open(2)` with `O_CREAT`/`O_TRUNC`), so a
 *   final link is followed: the file it leads to changes (a dangling one is created), not the link;
 * - `remove`: the directory entry itself is removed or renamed (`unlink(2)`, either end of
 *   `rename(2)`), so a final link is not followed: the link itself goes or is replaced, and
 *   where it leads is untouched;
 * - `replace`: the tool may do either (it writes a temporary file and renames it over the path,
 *   which replaces a final link by a file, or it writes through the link): both are judged.
 */
export type WriteKind = 'write' | 'remove' | 'replace';

/** One path a tool call changes and how ({@link Dialect.writeTargets}). */
export interface WriteTarget {
  /** As the tool's input names it: absolute, or relative to the call's working directory. */
  readonly path: string;
  readonly kind: WriteKind;
}

export type HookEventKind = 'tool.before' | 'tool.after' | 'session.start' | 'session.end' | 'turn.start' | 'turn.end';

/** Fields every normalised event has. */
interface NativeBase {
  /** The agent's own event name (`PreToolUse`, `AfterTool`, `post_tool_call`). */
  readonly nativeEvent: string;
  /** The agent's session id as sent; `''` when missing (the agent hook docs; docs/references.md, canonical names row). */
  readonly sessionId: string;
  /** Working directory the agent reported. */
  readonly cwd?: string;
}

/** Tool fields of tool events (the agent hook docs; docs/references.md, canonical names). */
interface NativeTool extends NativeBase {
  /** Native tool name. */
  readonly toolName: string;
  /** Native tool input; `{}` when missing or not an object. */
  readonly toolInput: Readonly<Record<string, unknown>>;
  /**
   * The input as sent when it is not an object (a string, an array, `null`; `undefined` when the
   * field was missing): the host hashes this, not the `{}` stand-in, for the call key of an agent
   * without call ids, so different calls do not share a key. Omitted when the input is an object.
   */
  readonly rawToolInput?: unknown;
  /** The agent's call id, when it sends one (Gemini does not). Kept as sent, newlines included. */
  readonly callId?: string;
}

/** A tool about to run. */
export interface NativeToolBefore extends NativeTool {
  readonly kind: 'tool.before';
}

/** A tool that finished, with what the payload says about the outcome. */
export interface NativeToolAfter extends NativeTool {
  readonly kind: 'tool.after';
  readonly status: ToolStatus;
  /** Shell exit code when the payload states or implies one. */
  readonly exitCode?: number;
  /** Duration in ms when the agent reports one. */
  readonly durationMs?: number;
  /** Error text of a failed call (untruncated; the host truncates). */
  readonly error?: string;
}

/** Session and turn boundaries. */
export interface NativeLifecycle extends NativeBase {
  readonly kind: 'session.start' | 'session.end' | 'turn.start' | 'turn.end';
}

/** What {@link Dialect.parse} returns: the payload normalised, before the host adds call keys, summaries and the agent PID. */
export type NativeEvent = NativeToolBefore | NativeToolAfter | NativeLifecycle;

/** What the hook process writes back to the agent. */
export interface HookReply {
  /** Text for stdout; `''` prints nothing. */
  readonly stdout: string;
  /** Exit code; 0 unless the dialect's only blocking channel is exit 2. */
  readonly exitCode: number;
  /** Text for stderr (fed to the model by some agents on exit 2). */
  readonly stderr?: string;
}

/**
 * Field readers for agent payloads, lent by the host so every dialect reads fields the same way
 * without importing host code (plugins import this package with `import type` only). None throws:
 * payloads come from other programs, so a missing field and a field of the wrong type both read
 * as `undefined` (the rule of {@link Dialect.parse}). The readers are plain functions (no `this`),
 * so a dialect may destructure them.
 */
export interface PayloadReaders {
  /** The string at `o[key]`, or `undefined` when absent or not a string. */
  readonly str: (o: Readonly<Record<string, unknown>>, key: string) => string | undefined;
  /** The finite number at `o[key]`, or `undefined` when absent, not a number, `NaN` or ±Infinity. */
  readonly num: (o: Readonly<Record<string, unknown>>, key: string) => number | undefined;
  /** The plain object at `o[key]`, or `undefined` when absent, `null`, an array or a primitive. */
  readonly obj: (o: Readonly<Record<string, unknown>>, key: string) => Record<string, unknown> | undefined;
  /**
   * The last at most `maxBytes` bytes of the file at `path` (a path a payload names, such as
   * Codex's `transcript_path`) as UTF-8 text, or `undefined` when it is missing, not a regular
   * file, or unreadable. Never blocks and never reads without bound: the file is opened
   * non-blocking and only a regular file is read (a FIFO, `/dev/zero` or a directory reads as
   * `undefined`), so a payload cannot stall the hook. A dialect reads every
   * file a payload names through this, never with `node:fs` directly.
   */
  readonly fileTail: (path: string, maxBytes: number) => string | undefined;
  /**
   * What a structured tool result says about failure, for tools that are not shells (MCP tools
   * and the like), or `undefined` when it says nothing (plain text, no result): the dialect then
   * records `unknown` unless the agent's event itself tells. `result` may be
   * an object or the JSON text of one. Failed: `isError: true` (MCP `CallToolResult`),
   * `is_error: true`, `success: false`, or a non-empty `error`; `error` is then that error's
   * text, else the result's MCP `content` text, else absent. Ok: `isError: false`,
   * `is_error: false` or `success: true`, with no `error`.
   */
  readonly resultOutcome: (result: unknown) => ResultOutcome | undefined;
}

/** What {@link PayloadReaders.resultOutcome} found in a tool result. */
export interface ResultOutcome {
  readonly status: 'ok' | 'failed';
  /** Error text of a failed result, when it carries any (untruncated). */
  readonly error?: string;
}

/** Context a dialect gets when it normalises a payload. */
export interface DialectContext {
  /** Environment of the hook process. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Never-throwing payload field readers, implemented once by the host. */
  readonly read: PayloadReaders;
}

/** One process in the hook's ancestry, as the host reads it (`/proc/<pid>/stat`, `exe`, `cmdline`). */
export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  /** Kernel short name (`comm`, at most 15 characters). */
  readonly comm: string;
  /** Resolved executable path, when readable. */
  readonly exe?: string;
  /** Command line split on NUL. */
  readonly argv: readonly string[];
}

/** An agent dialect: payload normaliser, tool-name mapper, decision writer and process signature. */
export interface Dialect {
  /** Agent name. */
  readonly name: string;
  /**
   * Normalises a native payload (the agent hook docs; docs/references.md, canonical names). Returns `undefined` for events cordon does
   * not record (e.g. `PreCompact`). Never throws on odd input: wrong types read as absent.
   * May be async (Codex reads its rollout transcript for exit codes).
   */
  parse(payload: Readonly<Record<string, unknown>>, ctx: DialectContext): NativeEvent | undefined | Promise<NativeEvent | undefined>;
  /**
   * Canonical family of a native tool (the agent hook docs; docs/references.md, canonical names); unknown names are `other`. The input is
   * there for tools whose family depends on it (Codex's `apply_patch` adds or edits files).
   */
  canonicalTool(toolName: string, toolInput: Readonly<Record<string, unknown>>): CanonicalTool;
  /** Writes a `beforeToolCall` decision in the agent's own format (the agent hook docs; docs/references.md, canonical names). */
  reply(decision: ToolDecision, call: ToolCall): HookReply;
  /**
   * Writes after-call feedback (`text`: the {@link ToolResult.feedback} entries joined) in the
   * reply the agent reads after a tool call (its PostToolUse / AfterTool output), so the model
   * sees it with the call's result. Absent when the agent's after-call hook cannot feed text to
   * the model; may return `undefined` for an event that cannot carry it. Must not throw on any
   * result the dialect's own `parse` produced.
   */
  replyAfter?(text: string, result: ToolResult): HookReply | undefined;
  /**
   * The files a tool call is about to change, as its input names them (absolute, or relative to
   * the call's working directory), or `undefined` when the tool changes no file. The host judges
   * them against an armed live envelope (docs/envelopes.md "The live envelope") and denies the
   * call through {@link reply} when one is outside the policy. Must decide by `toolName` first
   * and do no I/O: it runs on every `tool.before` event, and a call that writes no file must cost
   * nothing. A write tool whose input names no file returns `[]`. Optional: a dialect without it
   * has no live envelope.
   *
   * Each entry is a path, or a {@link WriteTarget} saying how the tool changes it, which decides
   * what a symbolic link at the path means: `write` (through the link: where it leads changes),
   * `remove` (the link itself goes) or `replace` (either). A plain path is judged as `replace`,
   * which is never weaker than the other two.
   */
  writeTargets?(toolName: string, toolInput: Readonly<Record<string, unknown>>): ReadonlyArray<string | WriteTarget> | undefined;
  /**
   * Environment variable that names the agent's pid directly (`CLAUDE_PID`), checked before the
   * ancestry walk (the agent hook docs; docs/references.md, finding the agent pid).
   */
  readonly agentPidEnv?: string;
  /**
   * Whether a process of the hook's ancestry is the agent (the agent hook docs; docs/references.md, finding the agent pid: the first non-shell
   * ancestor whose exe or command line matches). The host walks from the parent upward, skipping
   * shells, and stops at the first match.
   */
  isAgentProcess(proc: ProcessInfo): boolean;
}
