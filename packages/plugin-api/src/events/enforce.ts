/**
 * The enforcement event: run one command under resource limits (uncoalesced/cordon's
 * `control run` and tier table; kernel cgroup-v2.rst). `cordon control run` fires the `enforce` hook with a {@link GuardRequest};
 * the first backend able to enforce here (cgroup v2 on Linux: `@cordon/cgroup-linux`) runs the
 * command through {@link GuardRequest.spawn} and answers with a {@link GuardResult}. No answer
 * means the command runs unguarded. The host owns the process plumbing (stdio pass-through,
 * signal forwarding, exit codes), the note, the warning counts and the run record.
 */

/** Memory tier names of `AGENT_RESOURCE_HINT`, in escalation order. */
export type TierName = 'low' | 'medium' | 'high' | 'max';

/** One rung of the tier ladder (the seed's table, the tier table of uncoalesced/cordon). */
export interface GuardTier {
  readonly name: TierName;
  /** `memory.high` as a fraction of the RAM base (0.025 = 2.5 %); `null` = unlimited (`max`). */
  readonly ramFraction: number | null;
  /** `cpu.weight` of the tier (1–10000; the kernel's default is 100). */
  readonly cpuWeight: number;
}

/**
 * What `control run` does when the call cannot make progress: when the cgroup's memory `full`
 * stall grew by at least `fullFraction` of `windowMs` over the last `windowMs`, `memory.high` is
 * raised one tier (never `memory.max`, never a kill) and the window starts again.
 */
export interface StallPolicy {
  /** Sliding window in ms (default 5000). */
  readonly windowMs: number;
  /** Share of the window fully stalled that counts as "cannot make progress" (default 0.8). */
  readonly fullFraction: number;
  /** How often the backend samples the cgroup, ms (default 250). */
  readonly pollMs: number;
}

/** Options of {@link GuardRequest.spawn}. */
export interface GuardSpawnOptions {
  /**
   * argv placed before the command's own argv (a launcher such as `sh -c '…' ARG0`), so the
   * launcher can join a cgroup and `exec` the command: no window where the command runs outside.
   */
  readonly prefix?: readonly string[];
  /**
   * Gives the child a pipe on fd 3 and collects what it writes there until EOF into
   * {@link GuardChild.report} (a launcher reports that it joined, then closes fd 3 before exec).
   */
  readonly reportFd?: boolean;
}

/** How a spawned command ended. */
export interface GuardExit {
  /** Exit code, or `null` when a signal ended it. */
  readonly code: number | null;
  /** Signal name (`SIGKILL`), or `null`. */
  readonly signal: string | null;
  /** The shell's status: `code`, or 128 + the signal's number. */
  readonly exitCode: number;
}

/** A command started by {@link GuardRequest.spawn}. */
export interface GuardChild {
  readonly pid: number;
  /** What the child wrote on fd 3 before closing it ('' without `reportFd`). */
  readonly report: Promise<string>;
  /** Resolves when the child has exited (signals to cordon are forwarded to it meanwhile). */
  readonly exit: Promise<GuardExit>;
}

/** A request to run one command in its own resource domain. */
export interface GuardRequest {
  /** argv of the command; never run through a shell unless argv says so. */
  readonly argv: readonly string[];
  /** Working directory. */
  readonly cwd: string;
  /** Raw hint (`--hint`, else `AGENT_RESOURCE_HINT`), if any. */
  readonly hint?: string;
  /** The memory tier chosen from the hint (default `medium`). */
  readonly tier: TierName;
  /** `cpu.weight` chosen from the hint (the cpu tier's, default the memory tier's). */
  readonly cpuWeight: number;
  /** The whole ladder, `low` → `max`, for escalation and for reporting limits in bytes. */
  readonly tiers: readonly GuardTier[];
  /** The host's idea of RAM (MemTotal), bytes; a backend may use a lower base (a parent limit). */
  readonly ramBytes: number;
  /** What to do after a sustained full memory stall. */
  readonly stall: StallPolicy;
  /**
   * Starts the command (after `prefix`, see {@link GuardSpawnOptions}) with stdin, stdout and
   * stderr passed through and the request's environment. Rejects when it cannot start (the host
   * then reports exit 127). Call at most once.
   */
  spawn(options?: GuardSpawnOptions): Promise<GuardChild>;
}

/** One `memory.high` raise of the stall policy. */
export interface GuardEscalation {
  /** ms since the command started. */
  readonly atMs: number;
  readonly from: TierName;
  readonly to: TierName;
  /** The new `memory.high` in bytes, `null` = `max`. */
  readonly limitBytes: number | null;
  /** What showed the stall: PSI (`memory.pressure` full) or, without PSI, `memory.events` high with `memory.current` over memory.high. */
  readonly cause?: 'memory.pressure' | 'memory.events';
}

/** A process the command left running that was ended when the command exited. */
export interface EndedProcess {
  readonly pid: number;
  /**
   * Its arguments as `/proc/<pid>/cmdline` lists them, raw and in order (whole arguments while
   * they fit 64 KiB together, the last one kept cut there), else `[<comm>]` in brackets as one
   * element (a process without arguments: a zombie, a kernel thread), else `?` (gone). Raw on
   * purpose: the host redacts the secrets in them as an argv (`--token X`), then escapes and cuts
   * the line it shows and records (control/ended.ts), so no cut ever halves a secret.
   */
  readonly argv: readonly string[];
}

/** Where a backend placed a call's domain. */
export interface GuardPlacement {
  /**
   * `root-cgroup`: under the hierarchy's root (cordon runs there); `agent-cgroup`: under
   * cordon's own cgroup, the agent's, so every limit on it and its ancestors applies;
   * `agent-cgroup-leaf`: the same after moving the agent's processes into a `cordon-leaf` child
   * (cgroup v2's no-internal-process rule).
   */
  readonly kind: string;
  /** The cgroup the per-call domains were created under (`<anchor>/cordon/run-…`). */
  readonly anchor: string;
}

/** PSI totals of one cgroup pressure file, µs (kernel docs, accounting/psi.rst). */
export interface PressureTotals {
  readonly someUs: number;
  readonly fullUs: number;
}

/** What the backend that answered did and measured. */
export interface GuardResult {
  /** Backend name, e.g. `cgroup-linux`. */
  readonly backend: string;
  /** True when limits were applied and the command ran inside them. */
  readonly enforced: boolean;
  /** Exit code of the command (128 + signal number when killed by a signal; 127 when it could not start). */
  readonly exitCode: number;
  /** Signal that ended the command, if any. */
  readonly signal?: string;
  /** Human lines explaining what was applied (for `--verbose` and the log). */
  readonly notes: readonly string[];
  /** Where the command ran (a cgroup path), for the record. */
  readonly domain?: string;
  /** The tier the command started in and the one it ended in (after escalations). */
  readonly tier: TierName;
  readonly finalTier: TierName;
  /** `memory.high` applied at start, bytes; `null` = `max`. */
  readonly limitBytes: number | null;
  /** The RAM base the tier fractions were applied to, bytes. */
  readonly ramBytes: number;
  readonly cpuWeight: number;
  /** Peak memory of the domain, bytes (`memory.peak`, else the highest `memory.current` sampled). */
  readonly peakBytes: number | null;
  readonly peakSource: 'memory.peak' | 'memory.current' | null;
  /** `memory.events`: high, max, oom, oom_kill (and any other key the kernel printed). */
  readonly events: Readonly<Record<string, number>>;
  /** `memory.pressure` and `cpu.pressure` totals, null when PSI is unreadable. */
  readonly memoryPressure: PressureTotals | null;
  /** What the stall policy and the note go by: PSI, or `memory.events` when PSI cannot be read. */
  readonly stallSource?: 'memory.pressure' | 'memory.events';
  /** Time the domain was held over memory.high by the `memory.events` estimate, ms (the note's figure without PSI). */
  readonly throttledMs?: number;
  /** Where the domain was placed. */
  readonly placement?: GuardPlacement;
  /** Processes the command left running that were ended when it exited (empty when none). */
  readonly ended?: readonly EndedProcess[];
  readonly cpuPressure: PressureTotals | null;
  /** `cpu.stat` (usage_usec, user_usec, system_usec, nr_throttled …). */
  readonly cpuStat: Readonly<Record<string, number>>;
  /** Times the domain was seen frozen (`cgroup.events` frozen 1) and for how long in total, ms. */
  readonly frozenCount: number;
  readonly frozenMs: number;
  readonly escalations: readonly GuardEscalation[];
  /** Wall time of the command, ms. */
  readonly wallMs: number;
  /** The domain was removed after the command's whole group exited. */
  readonly removed: boolean;
}
