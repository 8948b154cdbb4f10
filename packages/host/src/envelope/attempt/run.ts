import type { AgentRunner } from '@cordon/plugin-api';
import { arm } from '../arm.js';
import type { EnvelopeAuditInput } from '../audit/run-audit.js';
import { discoverRepoOf } from '../git/repo.js';
import { acquireLock } from '../lock.js';
import { checkLabel, readPolicyFile, resolveSettings, type SettingsInput } from '../settings.js';
import { displayPath } from '../path-text.js';
import { policyGlobWarnings } from '../policy/glob-warnings.js';
import { shellOperatorVerifiers, shellOperatorWarning } from '../verify/shell-operators.js';
import { runAttempt, type AttemptResult } from './attempt.js';
import { findAgentBinary, resolveRunnerSettings, type RunnerInput } from './options.js';
import { InterruptTrap } from './signals.js';

/** What `cordon run` asks for. */
export interface RunRequest {
  /** The task; becomes the envelope's label (trimmed, non-blank, ≤ 16384 characters). */
  readonly task: string;
  /** Runner name, stored as the envelope's mode (`claude-code`). */
  readonly agent: string;
  readonly runner: AgentRunner;
  /** Policy flags (layered over `.cordon.json` and the defaults, as for `arm`). */
  readonly settings?: SettingsInput;
  /** Runner flags. */
  readonly runnerInput?: RunnerInput;
}

/** Where and with what `run`/`resume` work. */
export interface AttemptOptions {
  /** Any path inside the work tree (default: cwd). */
  readonly repo?: string;
  /** Fires `audit` so plugins can add violations. */
  readonly hooks?: EnvelopeAuditInput['hooks'];
  /** Environment of the agent and the verifiers (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Told each warning about the settings (a glob naming a directory: policy/directory-globs.ts;
   * a verifier holding a shell operator: verify/shell-operators.ts) before the agent starts; `cordon run` prints them on stderr. Only `run` arms, so `resume`
   * never calls it.
   */
  readonly warn?: (line: string) => void;
}

/**
 * `cordon run` (the BEKO2210/SkillQuarry cordon): validates every input first, the agent's executable
 * included (`findAgentBinary`; exit 2, nothing written),
 * then takes the repository lock and holds it continuously while it arms an envelope whose mode
 * is the agent, runs attempt 1 and audits it. Refuses when an envelope exists already, like
 * `arm`. Resolves with the attempt's result (exit 0/3/4, or 128 + n when a signal interrupted
 * it, in which case the agent's processes were ended before the lock was released; a signal
 * during arming interrupts attempt 1 before its agent starts).
 */
export async function runEnvelope(request: RunRequest, options: AttemptOptions = {}): Promise<AttemptResult> {
  const label = checkLabel(request.task);
  const settings = resolveRunnerSettings(request.runner, request.runnerInput ?? {});
  const loc = await discoverRepoOf(options.repo);
  findAgentBinary(request.runner, settings.binary, loc.root, options.env);
  const envelopeSettings = resolveSettings(readPolicyFile(loc.root), request.settings);
  for (const warning of policyGlobWarnings(envelopeSettings.policy, loc.root, displayPath)) options.warn?.(warning);
  for (const found of shellOperatorVerifiers(envelopeSettings.verify.commands)) options.warn?.(shellOperatorWarning(found));
  const lock = acquireLock(loc.lockFile, 'run');
  const trap = new InterruptTrap();
  try {
    // A run's attempts always have the live envelope on: the agent hears of an out-of-policy write when it makes it.
    const envelope = await arm({ label, settings: { ...envelopeSettings, live: true }, mode: request.agent, runner: { ...settings } }, { repo: loc.root, lock, env: options.env });
    return await runAttempt({ loc, envelope, agent: request.agent, runner: request.runner, settings, hooks: options.hooks, env: options.env, trap });
  } finally {
    lock.release();
    trap.dispose();
  }
}
