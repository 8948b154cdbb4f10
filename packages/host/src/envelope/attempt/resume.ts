import type { AgentRunner } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { auditEnvelope } from '../audit/run-audit.js';
import { discoverRepoOf } from '../git/repo.js';
import { acquireLock } from '../lock.js';
import { attemptRefusal } from '../phases.js';
import { loadEnvelope, saveAuditAndState, saveState } from '../state/store.js';
import { runAttempt, type AttemptResult } from './attempt.js';
import { findAgentBinary, runnerSettingsProblem, type RunnerSettings } from './options.js';
import { recoveryFor } from './prompt.js';
import { isAttemptRun } from './record.js';
import type { AttemptOptions } from './run.js';
import { InterruptTrap } from './signals.js';
import { refuseWhileAgentRuns, staleRunReason } from './stale.js';
import { finishInterrupted } from '../state/recover.js';

/**
 * What a refused `resume` says to do instead, after {@link attemptRefusal}'s reason: an accepted
 * envelope is done, and the attempt ceiling was set by `cordon run --max-attempts`.
 */
const RESUME_REFUSAL_HINTS = {
  accepted: 'there is nothing to resume (`cordon reset` ends the envelope, keeping the accepted changes; `cordon run` then starts the next task)',
  limit: 'every attempt `cordon run --max-attempts` allowed is used (`cordon check` audits what is there; `cordon reset`, then `cordon run` with a higher --max-attempts, starts again)',
} as const;

/** Options of {@link resumeEnvelope}. */
export interface ResumeOptions extends AttemptOptions {
  /** Loads the runner named by the envelope's mode (the host's `runners` registry). */
  readonly loadRunner: (name: string) => Promise<AgentRunner>;
}

/**
 * `cordon resume` (the BEKO2210/SkillQuarry cordon): a fresh agent attempt with recovery context, under the lock.
 * Refuses with exit 2 (`CORDON_BAD_STATE`), in this order, when: nothing is armed or the state
 * is corrupt; the agent of a killed `cordon run` still runs; the envelope is manual; its runner settings are invalid; it is accepted; the
 * attempt ceiling is reached; the agent's executable cannot be found (`CORDON_PROCESS_ERROR`); or the preflight — a policy audit of the current partial changes,
 * without verifiers — fails, which first persists phase `rejected`, `last_audit` and
 * `audit.json`. The ceiling comes before the preflight here (the reference checks it after),
 * so a refusal for the ceiling writes nothing.
 *
 * A phase `running` left by a cordon that is gone (killed, crashed) is recognised and persisted
 * as `interrupted` with the reason before anything else, so the recovery context names it.
 * Resume is allowed from `armed`, `running`, `rejected`, `engine_error` and `interrupted`.
 */
export async function resumeEnvelope(options: ResumeOptions): Promise<AttemptResult> {
  const loc = await discoverRepoOf(options.repo);
  const lock = acquireLock(loc.lockFile, 'resume');
  const trap = new InterruptTrap();
  try {
    await finishInterrupted(loc);
    let envelope = loadEnvelope(loc, { armFirst: '`cordon resume` gives the task of a `cordon run` another attempt: run `cordon run` first' });
    refuseWhileAgentRuns(envelope.state);
    const { config } = envelope;
    if (config.mode === 'manual') throw new CordonError(ERROR_CODES.BAD_STATE, 'manual envelopes cannot be resumed: `cordon arm` gave no agent the task (`cordon check` judges the change; `cordon reset` discards the envelope, after which `cordon run` gives a task to an agent)');
    const settingsBad = runnerSettingsProblem(config.runner);
    if (settingsBad) throw new CordonError(ERROR_CODES.BAD_STATE, settingsBad);
    const settings = config.runner as unknown as RunnerSettings;
    const refusal = attemptRefusal(envelope.state);
    if (refusal) throw new CordonError(ERROR_CODES.BAD_STATE, `${refusal}; ${RESUME_REFUSAL_HINTS[envelope.state.phase === 'accepted' ? 'accepted' : 'limit']}`);
    const runner = await options.loadRunner(config.mode);
    findAgentBinary(runner, settings.binary, loc.root, options.env);

    if (envelope.state.phase === 'running') {
      // We hold the lock, so whoever left `running` is gone.
      const reason = staleRunReason(envelope.state, loc.lockFile) ?? `attempt ${envelope.state.attempt} was left running by a cordon process that is gone`;
      const last = isAttemptRun(envelope.state.last_run) ? { ...envelope.state.last_run, status: 'interrupted', error: reason } : envelope.state.last_run;
      envelope = { ...envelope, state: saveState(loc.root, { ...envelope.state, phase: 'interrupted', last_error: reason, last_run: last }) };
    }

    const preflight = await auditEnvelope({ loc, baseline: config.baseline, policy: config.policy, verify: config.verify, snapshot: envelope.snapshot, hooks: options.hooks, env: options.env, runVerifiers: false, previous: envelope.state.last_audit });
    if (!preflight.passed) {
      const violations = preflight.violations.map((v) => v.message).join('; ');
      saveAuditAndState(loc.root, preflight, { ...envelope.state, phase: 'rejected', last_audit: preflight, last_error: violations });
      throw new CordonError(ERROR_CODES.BAD_STATE, `current partial changes violate the cordon envelope; refusing to resume: ${violations}. Undo them, then run \`cordon resume\` again (\`cordon check\` prints the whole audit)`, { details: { violations: preflight.violations } });
    }
    const recovery = envelope.state.attempt > 0 ? recoveryFor(envelope.state.attempt, envelope.state.last_error, preflight, envelope.state.last_audit) : undefined;
    return await runAttempt({ loc, envelope, agent: config.mode, runner, settings, recovery, hooks: options.hooks, env: options.env, trap });
  } finally {
    lock.release();
    trap.dispose();
  }
}
