/**
 * Tool-call telemetry as lent to plugins (`api.services.telemetry`): the host owns the marker
 * format (packages/host/src/telemetry/MARKERS.md), the session directories and the sampler; a
 * plugin such as `cordon wrap` (plugins/aider) records a session through these calls without
 * importing host code. Times are epoch milliseconds.
 *
 * Every method throws on I/O errors in the data directory (plain `Error`s with a `code` such as
 * `EACCES`); nothing here blocks on the sampler.
 */

/** Marker events a plugin may write (MARKERS.md "Fields"; `tool_denied` is written by the hot path only). */
export type TelemetryMarkerEvent = 'session_start' | 'session_end' | 'turn_start' | 'turn_end' | 'tool_start' | 'tool_end';

/**
 * One marker to append. The host adds `v`, `ts` (now), `hook_pid` (this process) and
 * `hook_overhead_ms` (0: written in-process, there is no hook process to time). Field meanings
 * are those of MARKERS.md.
 */
export interface TelemetryMarkerInput {
  readonly event: TelemetryMarkerEvent;
  /** The session id (sanitised by the host before it names a directory). */
  readonly session_id: string;
  /** Recording plugin / agent name, e.g. `aider`. */
  readonly agent: string;
  /** What happened in the recorder's own terms, e.g. `wrap-start`, `shell-start`. */
  readonly native_event: string;
  readonly call_key?: string;
  readonly call_key_source?: 'agent' | 'hash';
  readonly tool_name?: string;
  /** Canonical family: `shell`, `read`, `write`, `edit`, `search`, `web`, `subagent`, `mcp`, `other`. */
  readonly tool?: string;
  /** Command or input summary; the host cuts it to 2,000 characters. */
  readonly command?: string;
  readonly cwd?: string;
  readonly exit_status?: 'ok' | 'failed' | 'unknown';
  readonly exit_code?: number;
  readonly duration_ms?: number;
  /** The process whose tree is the agent (for `wrap`: the wrapped child). */
  readonly agent_pid?: number;
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

/** Host telemetry functions lent to plugins. */
export interface TelemetryService {
  /** Absolute directory of a session: `<dataDir>/runs/<sanitised id>`. */
  sessionDir(sessionId: string): string;
  /** Appends one marker line to the session's `markers.jsonl` (creating the directory). */
  appendMarker(marker: TelemetryMarkerInput): void;
  /**
   * Makes sure one detached sampler measures the tree rooted at `rootPid` for the session (the
   * same once-per-session lock the hook uses). `idle: false` turns the idle timeout off, for a
   * recorder that knows the agent is alive without markers (`wrap`); it still stops on `STOP` and
   * when the root exits.
   */
  startSampler(options: { readonly sessionId: string; readonly rootPid: number; readonly idle?: boolean }): TelemetrySamplerStart;
  /** Asks the session's sampler to stop (creates `STOP`); a no-op for a session that has no directory. */
  stopSampler(sessionId: string): void;
}
