import { processStart, isStale, readLock } from '../lock.js';
import type { EnvelopeState } from '../state/schema.js';
import { isAttemptRun } from './record.js';

/**
 * Why phase `running` is stale, or undefined when it is not (issue 3; the reference could not
 * tell, research §18.2 item 7). `run`/`resume` hold the lock for the whole attempt and record
 * their own pid and start identity in `last_run`, so a `running` phase is live only while that
 * process still runs; without a `last_run` the lock decides (held by a live `run`/`resume`).
 * `status` (which takes no lock) reports this; `resume`, holding the lock, records it.
 */
export function staleRunReason(state: EnvelopeState, lockFile: string): string | undefined {
  if (state.phase !== 'running') return undefined;
  const run = isAttemptRun(state.last_run) ? state.last_run : undefined;
  if (run) {
    if (processAlive(run.owner_pid, run.owner_start)) return undefined;
    return `attempt ${state.attempt} was left running by cordon pid ${run.owner_pid}${run.agent_pid ? ` (agent pid ${run.agent_pid})` : ''}, which is gone`;
  }
  const holder = readLock(lockFile);
  if (holder && !isStale(holder) && (holder.command === 'run' || holder.command === 'resume')) return undefined;
  return `attempt ${state.attempt} was left running by a cordon process that is gone`;
}

/** True when `pid` runs and, where known, is the same process (`/proc` start identity). */
export function processAlive(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (start === null) return true;
  const now = processStart(pid);
  return now === null || now === start;
}
