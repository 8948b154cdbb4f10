import { cutText } from '@cordon/plugin-api';
import type { AgentReport } from '@cordon/plugin-api';

/**
 * How one agent attempt ended, as cordon saw it:
 * - `running`: persisted before the agent starts (the BEKO2210/SkillQuarry cordon step 2);
 * - `finished`: the agent exited 0 inside its limits and reported success, so the audit decides;
 * - `engine_error`: it could not start, timed out, overflowed its output cap, was killed, exited
 *   non-zero, or reported an error itself (Claude's `is_error` even on exit 0);
 * - `interrupted`: cordon got SIGINT/SIGTERM/SIGHUP, or failed itself, and ended the attempt.
 */
export type AttemptStatus = 'running' | 'finished' | 'engine_error' | 'interrupted';

/**
 * The evidence of one attempt, stored as `state.last_run` and in `.cordon/attempt-<n>.json`
 * (snake_case like every `.cordon` file). Times are ISO-8601 UTC; durations are ms.
 */
// A type alias, not an interface, so it fits the state's `Record<string, unknown>` slot.
export type AttemptRun = {
  readonly attempt: number;
  /** Runner name (`claude-code`). */
  readonly agent: string;
  readonly status: AttemptStatus;
  /** The executable as given or defaulted (`claude`), and the arguments after it (no prompt when it went on stdin). */
  readonly binary: string;
  readonly args: readonly string[];
  /** `stdin` (not visible in `ps`) or `argv`. */
  readonly prompt_delivery: 'stdin' | 'argv';
  /** SHA-256 of the prompt text, which is kept beside the record in `attempt-<n>.json`. */
  readonly prompt_sha256: string;
  /** The cordon process that owns the attempt: pid and `/proc` start identity (lock.ts `processStart`). */
  readonly owner_pid: number;
  readonly owner_start: string | null;
  /** The agent's pid, once spawned; it leads its own process group. */
  readonly agent_pid: number | null;
  /** The agent's `/proc` start identity (as `owner_start`), recorded with its pid; absent in records of earlier versions. */
  readonly agent_start?: string | null;
  readonly started_at: string;
  readonly finished_at: string | null;
  /** Wall time from spawn to exit, ms. */
  readonly wall_ms: number | null;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly timed_out: boolean;
  readonly output_limited: boolean;
  /** The signal that interrupted cordon, if one did. */
  readonly interrupted_by: string | null;
  /** Processes of the agent's tree still alive after it ended, which cordon then killed. */
  readonly leftover_processes: number;
  /** Why the attempt is an engine error or was interrupted; null otherwise. */
  readonly error: string | null;
  /** From the agent's own report (null when it gave none). */
  readonly agent_status: string | null;
  readonly session_id: string | null;
  readonly turns: number | null;
  readonly cost_usd: number | null;
  /** The agent's own duration, ms. */
  readonly duration_ms: number | null;
  readonly input_tokens: number | null;
  readonly output_tokens: number | null;
  readonly tool_calls: number | null;
  readonly permission_denials: number | null;
  /** The agent's final message, first 2,000 characters. */
  readonly message: string | null;
  /** The last 2,000 characters of the agent's stderr, kept for engine errors only. */
  readonly stderr_tail: string | null;
};

/** Characters kept of the agent's message and stderr (the BEKO2210/SkillQuarry cordon: 2,000 of stderr). */
export const EXCERPT_CHARS = 2000;

/** The record persisted before the agent starts. */
export function startedRun(fields: Pick<AttemptRun, 'attempt' | 'agent' | 'binary' | 'args' | 'prompt_delivery' | 'prompt_sha256' | 'owner_pid' | 'owner_start' | 'started_at'>): AttemptRun {
  return {
    ...fields,
    status: 'running',
    agent_pid: null,
    agent_start: null,
    finished_at: null,
    wall_ms: null,
    exit_code: null,
    signal: null,
    timed_out: false,
    output_limited: false,
    interrupted_by: null,
    leftover_processes: 0,
    error: null,
    agent_status: null,
    session_id: null,
    turns: null,
    cost_usd: null,
    duration_ms: null,
    input_tokens: null,
    output_tokens: null,
    tool_calls: null,
    permission_denials: null,
    message: null,
    stderr_tail: null,
  };
}

/** The report's fields in record form (absent → null; numbers must be finite). */
export function reportFields(report: AgentReport | undefined): Pick<AttemptRun, 'agent_status' | 'session_id' | 'turns' | 'cost_usd' | 'duration_ms' | 'input_tokens' | 'output_tokens' | 'tool_calls' | 'permission_denials' | 'message'> {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    agent_status: str(report?.status),
    session_id: str(report?.sessionId),
    turns: num(report?.turns),
    cost_usd: num(report?.costUsd),
    duration_ms: num(report?.durationMs),
    input_tokens: num(report?.inputTokens),
    output_tokens: num(report?.outputTokens),
    tool_calls: num(report?.toolCalls),
    permission_denials: num(report?.permissionDenials),
    message: typeof report?.message === 'string' ? cutText(report.message, EXCERPT_CHARS) : null,
  };
}

/** True when `value` looks like an {@link AttemptRun} (a stored `last_run`). */
export function isAttemptRun(value: unknown): value is AttemptRun {
  const v = value as Partial<AttemptRun> | null;
  return typeof v === 'object' && v !== null && typeof v.attempt === 'number' && typeof v.agent === 'string' && typeof v.status === 'string' && typeof v.owner_pid === 'number';
}
