/**
 * Tool-call telemetry as lent to plugins (`api.services.telemetry`): the host owns the marker
 * format (packages/host/src/telemetry/MARKERS.md), the session directories and the sampler; a
 * plugin such as `cordon wrap` (plugins/aider) records a session through these calls without
 * importing host code. Times are epoch milliseconds.
 *
 * Every method throws on I/O errors in the data directory (plain `Error`s with a `code` such as
 * `EACCES`); nothing here blocks on the sampler, and only `awaitSamplerStop` waits for it.
 */

/** Marker events a plugin may write (MARKERS.md "Fields"; `tool_denied` is written by the hot path only). */
export type TelemetryMarkerEvent = 'session_start' | 'session_end' | 'turn_start' | 'turn_end' | 'tool_start' | 'tool_end';

/**
 * The fields of a marker line (MARKERS.md) that the host's own markers and the ones plugins
 * write share. Optional fields are omitted, never `null`.
 */
export interface MarkerCallFields {
  /** The agent's session id as sent (the host sanitises it before it names a directory). */
  readonly session_id: string;
  /** Dialect or recording plugin name: `claude-code`, `codex`, `gemini`, `cursor`, `hermes`, `aider`. */
  readonly agent: string;
  /** What happened in the agent's (or recorder's) own terms, e.g. `PreToolUse`, `wrap-start`. */
  readonly native_event: string;
  /** Tool events: pairs a start with its end (the agent's call id, or `h:<hash>.<n>`). */
  readonly call_key?: string;
  /** Tool events: `agent` when `call_key` is the agent's call id, `hash` when computed. */
  readonly call_key_source?: 'agent' | 'hash';
  /** Tool events: the native tool name (`Bash`, `run_shell_command`, `apply_patch`). */
  readonly tool_name?: string;
  /** Tool events: the canonical family: `shell`, `read`, `write`, `edit`, `search`, `web`, `subagent`, `mcp`, `other`. */
  readonly tool?: string;
  /** Tool events: command or input summary, at most 2,000 characters (the host cuts it). */
  readonly command?: string;
  /** Working directory the agent reported. */
  readonly cwd?: string;
  /** `tool_end`: exit code of a shell call, when the agent reports one. */
  readonly exit_code?: number;
  /** `tool_end`: duration the agent reported, ms. */
  readonly duration_ms?: number;
  /** The process whose tree is the agent (`CLAUDE_PID`, the ancestry walk, or `wrap`'s child). */
  readonly agent_pid?: number;
}

/**
 * One marker to append. The host adds `v`, `ts` (now), `hook_pid` (this process) and
 * `hook_overhead_ms` (0: written in-process, there is no hook process to time). Field meanings
 * are those of MARKERS.md.
 */
export interface TelemetryMarkerInput extends MarkerCallFields {
  readonly event: TelemetryMarkerEvent;
  /** `tool_end`: how the call ended. */
  readonly exit_status?: 'ok' | 'failed' | 'unknown';
}

/** What {@link TelemetryService.startSampler} did. */
export interface TelemetrySamplerStart {
  /** True when this call started the sampler; false when one ran already or none could start. */
  readonly started: boolean;
  /** Why nothing was started: `running`, `disabled` (`CORDON_SAMPLER=off`), `unsupported`, `no-root`, `spawn-failed`. */
  readonly reason?: string;
  /** The sampler's pid, when one runs. */
  readonly pid?: number;
  /** Lock generation of the running sampler (1 for the session's first). */
  readonly generation?: number;
}

/**
 * How {@link TelemetryService.awaitSamplerStop} ended: the sampler `stopped` (its last samples and
 * its `stop` event are written), `none` was running, or it still ran at the `timeout`.
 */
export type TelemetrySamplerWait = 'stopped' | 'none' | 'timeout';

/** Host telemetry functions lent to plugins. */
export interface TelemetryService {
  /** Absolute directory of a session: `<dataDir>/runs/<sanitised id>`. */
  sessionDir(sessionId: string): string;
  /**
   * Why `name`, given by a user for a new session (`cordon wrap --session`), cannot name one, or
   * undefined when it can: a plain name (letters, digits, `.`, `_`, `-`, starting with a letter or
   * digit, at most 96 characters) that {@link sessionDir} uses as is. The text ends in the rule
   * (`not a plain session name: use letters, …`), for a refusal that names the flag before it.
   * Optional: a host older than it has none.
   */
  sessionNameProblem?(name: string): string | undefined;
  /** Appends one marker line to the session's `markers.jsonl` (creating the directory). */
  appendMarker(marker: TelemetryMarkerInput): void;
  /**
   * Makes sure one detached sampler measures the tree rooted at `rootPid` for the session (the
   * same once-per-session lock the hook uses). `idle: false` turns the idle timeout off, for a
   * recorder that knows the agent is alive without markers (`wrap`); it still stops on `STOP` and
   * when the root exits. `since` (epoch ms, default now) is when the measured command started
   * (`wrap`: its spawn): the session's sampled span starts there, not at the sampler's first tick,
   * which comes a process start-up and one interval later.
   */
  startSampler(options: { readonly sessionId: string; readonly rootPid: number; readonly idle?: boolean; readonly since?: number }): TelemetrySamplerStart;
  /** Asks the session's sampler to stop (creates `STOP`); a no-op for a session that has no directory. */
  stopSampler(sessionId: string): void;
  /**
   * Waits, at most `timeoutMs`, until the session's sampler has stopped and written everything it
   * measured (its last samples and its `stop` event; a sampler whose process is gone counts as
   * stopped). A recorder that ends a session calls it after {@link stopSampler} (or after the
   * sampled root exited) so that what it reports is complete when it returns: `cordon wrap -- x &&
   * cordon reduce` must not read a session still being written. Never rejects.
   */
  awaitSamplerStop(sessionId: string, timeoutMs: number): Promise<TelemetrySamplerWait>;
}
