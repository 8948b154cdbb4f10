import { discoverRepoOf } from './git/repo.js';
import type { Phase } from './phases.js';
import type { AuditRecord } from './audit/record.js';
import type { Limits } from './policy/policy.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { isStale, readLock, type LockRecord } from './lock.js';
import { loadEnvelope, type Envelope } from './state/store.js';
import { orphanedAgent, staleRunReason } from './attempt/stale.js';
import { runnerSettingsProblem } from './attempt/options.js';
import { agentStderrLines } from './attempt/agent-stderr.js';
import { isAttemptRun } from './attempt/record.js';

/** What `cordon status` reports (the BEKO2210/SkillQuarry cordon, plus the policy's globs and limits). */
export interface StatusReport {
  readonly mode: string;
  readonly label: string;
  readonly baseline: string;
  readonly phase: Phase;
  readonly attempt: number;
  readonly max_attempts: number;
  readonly last_error: string | null;
  readonly last_audit: AuditRecord | null;
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  readonly allow_ignored: readonly string[];
  readonly allow_commits: boolean;
  readonly limits: Limits;
  readonly verify: readonly string[];
  /** Whether the live envelope is on: `cordon hook` refuses writes outside the policy before they happen. */
  readonly live: boolean;
  readonly created_at: string;
  readonly updated_at: string;
  /** Why phase `running` is stale (the cordon process that ran the attempt is gone), else null. */
  readonly stale_run: string | null;
  /** The pid of the agent of a killed `cordon run` that still runs, else null. */
  readonly live_agent_pid: number | null;
  /** The cordon command holding the repository lock right now (`check, pid 123 on host, since …`), else null. */
  readonly operation: string | null;
  /**
   * The last lines of the agent's stderr when the last attempt was an engine error (it could not
   * start, timed out, failed): redacted, repeats counted (`… (7 times)`), not yet escaped for a
   * terminal (attempt/agent-stderr.ts `agentStderrLines`); empty otherwise.
   */
  readonly last_agent_stderr: readonly string[];
}

/**
 * `cordon status`: validates the whole envelope (the BEKO2210/SkillQuarry cordon) and summarises it. Takes no
 * lock, so it works while a `run` holds one and then shows phase `running`; a command
 * holding the lock is named in `operation`. Every state change cordon makes is atomic (the
 * envelope appears whole at arm, state files are renamed into place), so status sees the last
 * complete state. When the state cannot be loaded while a live cordon process holds the lock
 * (an `arm` still building it), status names that process instead of calling the envelope
 * damaged: `CORDON_LOCK_HELD`, exit 2.
 * Throws `CORDON_BAD_STATE` (exit 2) when nothing is armed or the state is corrupt.
 */
export async function status(repo?: string): Promise<StatusReport> {
  const loc = await discoverRepoOf(repo);
  let envelope: Envelope;
  try {
    envelope = loadEnvelope(loc);
  } catch (error) {
    const holder = liveHolder(loc.lockFile);
    if (holder && error instanceof CordonError) {
      throw new CordonError(
        ERROR_CODES.LOCK_HELD,
        `\`cordon ${holder.command}\` (${holderText(holder)}) is working on this repository right now and there is no complete envelope to show yet; run \`cordon status\` again when it has finished`,
        { details: { holder, problem: error.message } },
      );
    }
    throw error;
  }
  const { config, state } = envelope;
  // What `resume` refuses is not healthy: a `run` envelope whose runner settings are damaged.
  if (config.mode !== 'manual') {
    const runnerBad = runnerSettingsProblem(config.runner);
    if (runnerBad) throw new CordonError(ERROR_CODES.BAD_STATE, `${runnerBad}; \`cordon resume\` would refuse this envelope: run \`cordon reset\`, then \`cordon run\` again`, { details: { problem: runnerBad } });
  }
  const holder = liveHolder(loc.lockFile);
  return {
    mode: config.mode,
    label: config.label,
    baseline: config.baseline,
    phase: state.phase,
    attempt: state.attempt,
    max_attempts: state.max_attempts,
    last_error: state.last_error,
    last_audit: state.last_audit,
    allow: config.policy.allow,
    deny: config.policy.deny,
    allow_ignored: config.policy.allow_ignored,
    allow_commits: config.policy.allow_commits,
    limits: config.policy.limits,
    verify: config.verify.commands,
    live: config.live === true,
    created_at: config.created_at,
    updated_at: state.updated_at,
    stale_run: staleRunReason(state, loc.lockFile) ?? null,
    live_agent_pid: orphanedAgent(state) ?? null,
    operation: holder ? `${holder.command}, ${holderText(holder)}` : null,
    last_agent_stderr: isAttemptRun(state.last_run) && state.last_run.status === 'engine_error' ? agentStderrLines(state.last_run.stderr_tail) : [],
  };
}

/** The lock's holder when it is a live process (a stale or unreadable lock holds nothing). */
function liveHolder(lockFile: string): LockRecord | undefined {
  const holder = readLock(lockFile);
  return holder && !isStale(holder) ? holder : undefined;
}

function holderText(holder: LockRecord): string {
  return `pid ${holder.pid} on ${holder.host}, since ${holder.since}`;
}
