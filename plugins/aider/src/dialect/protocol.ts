/**
 * The shell shim's hook payloads: the "native" format of this dialect, written by
 * `shim/shell.ts` and sent to `cordon hook --agent aider` on stdin.
 */
export interface ShimPayload {
  /** `shell_start` before the command runs, `shell_end` after. */
  readonly hook_event_name: 'shell_start' | 'shell_end';
  /** The `cordon wrap` session id. */
  readonly session_id: string;
  /** Pairs start and end: `sh-<shim pid>`. */
  readonly call_id: string;
  /** The `-c` command string. */
  readonly command: string;
  readonly cwd: string;
  /** `shell_end`: the shell's exit code, 128 + signal number when a signal ended it. */
  readonly exit_code?: number;
  /** `shell_end`: wall time of the command, ms. */
  readonly duration_ms?: number;
}

/** What the hook prints back to the shim when a `beforeToolCall` tap decided (stdout, one JSON object). */
export type ShimReply = { readonly decision: 'deny'; readonly reason: string } | { readonly decision: 'rewrite'; readonly command: string };

/** Environment variable the shim sets for the hook: the wrapped agent's pid (the marker's `agent_pid`). */
export const AGENT_PID_ENV = 'CORDON_WRAP_AGENT_PID';

/** Native tool name of a shell command run through the shim. */
export const SHELL_TOOL = 'shell';
