/**
 * Named tap stages. Lower runs earlier; plugins pass these, never raw numbers
 * (same idea as webpack's `PROCESS_ASSETS_STAGE_*`).
 *
 * - `GUARD`: policy that may deny before anything else looks at a call.
 * - `POLICY`: ordinary policy decisions and input rewrites.
 * - `DEFAULT`: the stage used when a plugin names none.
 * - `OBSERVE`: taps that only record what happened.
 * - `REPORT`: last; summaries and sinks.
 */
export const STAGE = Object.freeze({
  GUARD: -2000,
  POLICY: -1000,
  DEFAULT: 0,
  OBSERVE: 1000,
  REPORT: 2000,
} as const);

/** One of the {@link STAGE} values. */
export type Stage = (typeof STAGE)[keyof typeof STAGE];
