/**
 * Headless agent launchers for `cordon run` / `cordon resume` (the BEKO2210/SkillQuarry cordon).
 * The host owns the attempt: the lock, the phases, the process group, the timeout, the
 * output cap, the audit and the exit code. A runner only knows its agent's command line: which
 * arguments start one non-interactive attempt, how the prompt reaches the agent, and how to read
 * the agent's own report of how the attempt went.
 */

/** A registered runner. Registration is cheap; the implementation loads on `run`/`resume`. */
export interface RunnerEntry {
  /** Agent name, equal to the plugin name and to `--agent` (`claude-code`, `codex`, `gemini`). */
  readonly name: string;
  /** Loads the runner implementation. */
  readonly load: () => Promise<AgentRunner>;
}

/** The envelope's numeric limits as the prompt states them (the BEKO2210/SkillQuarry cordon; all inclusive). */
export interface BriefLimits {
  /** Changed paths. */
  readonly max_files: number;
  /** Added lines. */
  readonly max_added_lines: number;
  /** Deleted lines. */
  readonly max_deleted_lines: number;
  /** Summed on-disk size of the changed files, bytes (the BEKO2210/SkillQuarry cordon). */
  readonly max_working_bytes: number;
  /** Binary files. */
  readonly max_binary_files: number;
}

/** One verifier that failed in the previous audit, for the recovery context (the BEKO2210/SkillQuarry cordon). */
export interface FailedVerifier {
  /** The `--verify` string as given. */
  readonly command: string;
  /** `exit 1`, `timeout`, `output limit`, `cannot start`. */
  readonly outcome: string;
  /** Up to 2,000 characters of its stderr, else its stdout. */
  readonly output: string;
}

/** What a resumed attempt is told about the attempts before it (the BEKO2210/SkillQuarry cordon). */
export interface RecoveryContext {
  /** The previous attempt's number. */
  readonly previousAttempt: number;
  /** How the previous attempt ended (the state's `last_error`), or null when none was recorded. */
  readonly previousError: string | null;
  /** Paths changed since the baseline right now (the resume preflight's audit), sorted. */
  readonly changedPaths: readonly string[];
  /** How many changed paths there are in all (`changedPaths` may be cut short). */
  readonly changedCount: number;
  /** Verifiers that failed in the last full audit. */
  readonly failedVerifiers: readonly FailedVerifier[];
}

/** Everything the prompt of one attempt must state (the BEKO2210/SkillQuarry cordon), agent-neutral. */
export interface AttemptBrief {
  /** The task, as armed (the envelope's label). */
  readonly task: string;
  /** Globs a changed path must match. */
  readonly allow: readonly string[];
  /** Globs no changed path may match (deny wins). */
  readonly deny: readonly string[];
  readonly limits: BriefLimits;
  /** Whether HEAD may move (commits are audited either way). */
  readonly allowCommits: boolean;
  /** The verifier commands cordon runs after the attempt. */
  readonly verifiers: readonly string[];
  /** This attempt's number, 1 for `run`. */
  readonly attempt: number;
  /** The ceiling over `run` plus every `resume`. */
  readonly maxAttempts: number;
  /** Present on `resume`. */
  readonly recovery?: RecoveryContext;
}

/**
 * Limits and choices the user gave `cordon run` (validated and stored in `.cordon/config.json`
 * as `runner`); null means "not given, the agent's own default".
 */
export interface RunnerLimits {
  /** `--max-turns`: agentic turns, when the runner {@link RunnerSupport.maxTurns supports} it. */
  readonly maxTurns: number | null;
  /** `--max-budget-usd`: spend ceiling in US dollars. */
  readonly maxBudgetUsd: number | null;
  /** `--model`: the agent's model name or alias. */
  readonly model: string | null;
  /** `--effort`: one of {@link RunnerSupport.effort}. */
  readonly effort: string | null;
}

/** What a runner's agent can enforce itself; cordon refuses a flag the agent cannot honour (exit 2). */
export interface RunnerSupport {
  /** The agent has a turn limit (`--max-turns`); the default applied when the user gives none, else false. */
  readonly maxTurns: { readonly default: number } | false;
  /** The agent has a spend ceiling (`--max-budget-usd`). */
  readonly maxBudgetUsd: boolean;
  /** The agent takes a model name (`--model`). */
  readonly model: boolean;
  /** Effort levels the agent accepts (`--effort`), from its own `--help` or docs; empty when it has none. */
  readonly effort: readonly string[];
}

/** What the host asks a runner to launch. */
export interface LaunchRequest {
  /** The prompt text ({@link AgentRunner.prompt}'s result). */
  readonly prompt: string;
  readonly limits: RunnerLimits;
  /** The repository root, which is also the agent's working directory. */
  readonly cwd: string;
}

/** How to start the agent for one attempt. */
export interface LaunchPlan {
  /** Arguments after the executable. Never the prompt when `stdin` carries it. */
  readonly args: readonly string[];
  /**
   * Text written to the agent's stdin before it is closed. Agents that read their prompt there get
   * it this way, so it never shows in `ps` (docs/envelopes.md). Undefined: stdin is /dev/null.
   */
  readonly stdin?: string;
  /** Variables added to the inherited environment. */
  readonly env?: Readonly<Record<string, string>>;
}

/** The agent process as it ended (host-captured, up to the output cap per stream). */
export interface AgentOutput {
  /** Exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** stdout as UTF-8. */
  readonly stdout: string;
  /** stderr as UTF-8. */
  readonly stderr: string;
}

/**
 * The agent's own account of the attempt, read from its output. Every field but `ok` is
 * optional: an agent that was killed, or that does not report something, leaves it out.
 */
export interface AgentReport {
  /** False when the agent says the attempt failed (Claude `is_error: true` or an error `subtype`; a Codex `turn.failed`; a Gemini `error`), or printed no readable report. */
  readonly ok: boolean;
  /** The agent's own error text when `ok` is false. */
  readonly error?: string;
  /**
   * True when `ok` is false because the agent reported nothing readable, not because it reported
   * a failure: `error` then says what was missing as a predicate (`printed no JSON events on
   * stdout`), and the host words an exit 0 as `<agent> exited 0 but <error>` instead of "reported
   * an error".
   */
  readonly unreported?: boolean;
  /** The agent's status word: Claude's `subtype` (`success`, `error_max_turns`, …), Codex's last turn event, Gemini's `ok`/`error`. */
  readonly status?: string;
  /** The agent's session/thread id. */
  readonly sessionId?: string;
  /** Agentic turns the agent counted (Claude `num_turns`; Codex completed turns; Gemini main-model requests). */
  readonly turns?: number;
  /** Cost in US dollars as the agent computed it (Claude `total_cost_usd`). */
  readonly costUsd?: number;
  /** The agent's own duration, ms (Claude `duration_ms`). */
  readonly durationMs?: number;
  /** Input and output tokens, summed over the attempt. */
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Tool calls the agent made (where it reports them). */
  readonly toolCalls?: number;
  /** Tool calls the agent's permission system refused (Claude `permission_denials`). */
  readonly permissionDenials?: number;
  /** The agent's final message (the host keeps its first 2,000 characters). */
  readonly message?: string;
}

/**
 * One agent's headless command line. Implementations are pure functions of their inputs: the host
 * spawns, supervises and kills; a runner never starts a process.
 */
export interface AgentRunner {
  /** The agent's product name for messages (`Claude Code`). */
  readonly title: string;
  /** Executable looked up on `PATH` when the user gives no `--agent-bin`. */
  readonly binary: string;
  /**
   * How a user installs the agent (`npm install -g @openai/codex`), shown when its executable
   * cannot be found before an attempt. Optional; without it the message names only the binary.
   */
  readonly install?: string;
  /** Which limits the agent enforces itself. */
  readonly supports: RunnerSupport;
  /**
   * The prompt for one attempt. `standard` is the host's agent-neutral rendering of `brief` (task,
   * allow and deny globs, every budget, the commit rule, the independent audit, the attempt number,
   * the recovery context); a runner returns it, possibly with lines about its agent added.
   */
  prompt(brief: AttemptBrief, standard: string): string;
  /** Arguments, stdin and environment for one attempt. */
  launch(request: LaunchRequest): LaunchPlan;
  /** Reads the agent's report from its output. Must not throw on odd output: return `ok: false` with an error instead. */
  parse(output: AgentOutput): AgentReport;
}
