import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { processGroupRuns, processRuns } from '../../io/private-temp.js';
import { processStart, isStale, readLock } from '../lock.js';
import type { EnvelopeState } from '../state/schema.js';
import { isAttemptRun } from './record.js';

/**
 * Why phase `running` is stale, or undefined when it is not (the reference could not
 * tell, docs/envelopes.md). `run`/`resume` hold the lock for the whole attempt and record
 * their own pid and start identity in `last_run`, so a `running` phase is live only while that
 * process still runs; without a `last_run` the lock decides (held by a live `run`/`resume`).
 * When the cordon process is gone but its agent still runs (cordon was SIGKILLed and could not
 * stop it), the reason says so. `status` (which takes no lock) reports this;
 * `resume`, holding the lock, records it.
 */
export function staleRunReason(state: EnvelopeState, lockFile: string): string | undefined {
  if (state.phase !== 'running') return undefined;
  const run = isAttemptRun(state.last_run) ? state.last_run : undefined;
  if (run) {
    if (processAlive(run.owner_pid, run.owner_start)) return undefined;
    const agent = orphanedAgent(state);
    if (agent !== undefined) {
      return `attempt ${state.attempt} was left running by cordon pid ${run.owner_pid}, which is gone; its agent (pid ${agent}) is still running and can still change files: stop it (kill -TERM -- -${agent}) before \`cordon check\` or \`cordon resume\``;
    }
    return `attempt ${state.attempt} was left running by cordon pid ${run.owner_pid}${run.agent_pid ? ` (agent pid ${run.agent_pid})` : ''}, which is gone`;
  }
  const holder = readLock(lockFile);
  if (holder && !isStale(holder) && (holder.command === 'run' || holder.command === 'resume')) return undefined;
  return `attempt ${state.attempt} was left running by a cordon process that is gone`;
}

/**
 * The pid of an agent that still runs although the cordon process that started it is gone, or
 * undefined. The agent counts as running while its pid runs with the start identity recorded at
 * spawn (`agent_start`; a record without one trusts the pid), or while its process group (it led
 * one) still has members after it exited.
 */
export function orphanedAgent(state: EnvelopeState): number | undefined {
  if (state.phase !== 'running' || !isAttemptRun(state.last_run)) return undefined;
  const run = state.last_run;
  if (typeof run.agent_pid !== 'number' || !Number.isSafeInteger(run.agent_pid) || run.agent_pid <= 0) return undefined;
  if (processAlive(run.owner_pid, run.owner_start)) return undefined;
  const start = typeof run.agent_start === 'string' ? run.agent_start : null;
  if (processAlive(run.agent_pid, start)) return run.agent_pid;
  // The leader exited; the tools it started in its group may still run.
  if (!processRuns(run.agent_pid, null) && processGroupRuns(run.agent_pid)) return run.agent_pid;
  return undefined;
}

/**
 * The refusal of `check` and `resume` while {@link orphanedAgent} finds the agent of a killed
 * `cordon run` still running: an audit now would judge a tree the agent is still changing.
 */
export function refuseWhileAgentRuns(state: EnvelopeState): void {
  const agent = orphanedAgent(state);
  if (agent === undefined) return;
  throw new CordonError(
    ERROR_CODES.BAD_STATE,
    `the agent of attempt ${state.attempt} (pid ${agent}) is still running although the cordon process that started it is gone, and it can still change files; stop it first (kill -TERM -- -${agent}), then run this again`,
    { details: { agent_pid: agent, attempt: state.attempt } },
  );
}

/** True when `pid` runs and, where known, is the same process (`/proc` start identity). */
export function processAlive(pid: number, start: string | null): boolean {
  if (!processRuns(pid, null)) return false;
  if (start === null) return true;
  const now = processStart(pid);
  return now === null || now === start;
}

