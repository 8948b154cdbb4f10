/** Sampler settings read from the environment. */
export interface SamplerSettings {
  /** Tick interval in ms: `CORDON_INTERVAL`, default 250, floor 10 (uncoalesced/cordon). */
  readonly intervalMs: number;
  /** Stop after this many ms without a new marker: `CORDON_SAMPLER_IDLE` (seconds), default 1800 s. */
  readonly idleMs: number;
  /** `CORDON_SAMPLER`: a sampler name to force, `off` to never start one, or undefined (pick by platform). */
  readonly sampler?: string;
}

/** Default tick interval, ms: 4 to 8 samples per 1 to 2 s burst, where 1 s aliases (uncoalesced/cordon). */
export const DEFAULT_INTERVAL_MS = 250;
/** Smallest interval accepted, ms. */
export const MIN_INTERVAL_MS = 10;
/** Default idle timeout, ms. */
export const DEFAULT_IDLE_MS = 30 * 60_000;

/**
 * Reads {@link SamplerSettings}. Unparseable or non-positive values fall back to the defaults
 * (the hook path must never fail on a bad variable); an interval below 10 ms is raised to 10 ms.
 */
export function samplerSettings(env: NodeJS.ProcessEnv = process.env): SamplerSettings {
  const interval = Number(env.CORDON_INTERVAL);
  const idle = Number(env.CORDON_SAMPLER_IDLE);
  return {
    intervalMs: Number.isFinite(interval) && interval > 0 ? Math.max(MIN_INTERVAL_MS, Math.round(interval)) : DEFAULT_INTERVAL_MS,
    idleMs: Number.isFinite(idle) && idle > 0 ? Math.round(idle * 1000) : DEFAULT_IDLE_MS,
    sampler: env.CORDON_SAMPLER || undefined,
  };
}
