/**
 * Envelope phases and the transitions between them (the BEKO2210/SkillQuarry cordon):
 *
 * ```
 * arm                  -> armed
 * run / resume         -> running -> accepted | rejected | engine_error | interrupted
 * check (any phase)    -> accepted | rejected
 * resume preflight bad -> rejected
 * ```
 *
 * `agent_finished`, which the reference declares but never persists, is not a
 * phase here. `run`/`resume` use {@link beginAttempt} and {@link finishAttempt}.
 */
export const PHASES = ['armed', 'running', 'accepted', 'rejected', 'engine_error', 'interrupted'] as const;

/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** True when `value` names a phase. */
export function isPhase(value: unknown): value is Phase {
  return typeof value === 'string' && (PHASES as readonly string[]).includes(value);
}

/** The fields of the state a transition touches. */
export interface PhaseState {
  readonly phase: Phase;
  readonly attempt: number;
  readonly max_attempts: number;
  readonly last_error: string | null;
}

/** Phase after a `check`: accepted exactly when the audit passed (any earlier phase is overwritten). */
export function phaseAfterCheck(passed: boolean): Phase {
  return passed ? 'accepted' : 'rejected';
}

/**
 * Why a new agent attempt may not start, or undefined (the BEKO2210/SkillQuarry cordon step 1): an accepted
 * envelope is done; the attempt ceiling holds (`attempt >= max_attempts`).
 */
export function attemptRefusal(state: PhaseState): string | undefined {
  if (state.phase === 'accepted') return 'the cordon envelope is already accepted';
  if (state.attempt >= state.max_attempts) return `attempt limit reached (${state.max_attempts})`;
  return undefined;
}

/**
 * The state to persist *before* an agent attempt starts (the BEKO2210/SkillQuarry cordon step 2): attempt + 1,
 * phase `running`. Throws `Error` with {@link attemptRefusal}'s reason when refused.
 */
export function beginAttempt<S extends PhaseState>(state: S): S {
  const refusal = attemptRefusal(state);
  if (refusal) throw new Error(refusal);
  return { ...state, phase: 'running', attempt: state.attempt + 1, last_error: null };
}

/** How an agent attempt ended, as the runner saw it. */
export type AttemptOutcome =
  | { readonly kind: 'finished' }
  | { readonly kind: 'engine_error'; readonly reason: string }
  | { readonly kind: 'interrupted'; readonly reason: string };

/**
 * The state after an attempt and its audit (the BEKO2210/SkillQuarry cordon steps 5–7): an engine error stays
 * `engine_error` even when the audit passed; an interruption is `interrupted`; otherwise the
 * audit decides, and a rejection records its violations joined with "; ".
 */
export function finishAttempt<S extends PhaseState>(state: S, outcome: AttemptOutcome, audit?: { passed: boolean; violations: ReadonlyArray<{ message: string }> }): S {
  if (outcome.kind === 'interrupted') return { ...state, phase: 'interrupted', last_error: outcome.reason };
  if (outcome.kind === 'engine_error') return { ...state, phase: 'engine_error', last_error: outcome.reason };
  if (!audit) throw new Error('finishAttempt needs the audit of a finished attempt');
  return audit.passed ? { ...state, phase: 'accepted', last_error: null } : { ...state, phase: 'rejected', last_error: audit.violations.map((v) => v.message).join('; ') };
}
