/**
 * The enforcement event: run one command under resource limits (research/cordon-resource.md A.9, C.1).
 */

/** A request to run one command in its own cgroup. */
export interface GuardRequest {
  /** argv of the command; never run through a shell unless argv says so. */
  readonly argv: readonly string[];
  /** Working directory. */
  readonly cwd: string;
  /** Raw `AGENT_RESOURCE_HINT` value, if any. */
  readonly hint?: string;
  /** `memory.high` in bytes, when decided. */
  readonly memoryHighBytes?: number;
  /** `cpu.weight` (1–10000), when decided. */
  readonly cpuWeight?: number;
}

/** What the backend that answered did. */
export interface GuardResult {
  /** Backend name, e.g. `cgroup-linux`. */
  readonly backend: string;
  /** True when limits were applied; false when the backend only logged what it would apply. */
  readonly enforced: boolean;
  /** Exit code of the command (128 + signal number when killed by a signal). */
  readonly exitCode: number;
  /** Human lines explaining what was (or would have been) applied. */
  readonly notes: readonly string[];
}
