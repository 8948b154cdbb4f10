import type { GuardTier, StallPolicy, TierName } from '@cordon/plugin-api';

/**
 * The tier ladder (the tier table of uncoalesced/cordon): `memory.high`
 * as a share of RAM (MemTotal, or the parent cgroup's lower limit) and `cpu.weight`. `max` is
 * unlimited. Never `memory.max`.
 */
export const TIERS: readonly GuardTier[] = Object.freeze([
  Object.freeze({ name: 'low', ramFraction: 0.025, cpuWeight: 25 }),
  Object.freeze({ name: 'medium', ramFraction: 0.1, cpuWeight: 100 }),
  Object.freeze({ name: 'high', ramFraction: 0.35, cpuWeight: 400 }),
  Object.freeze({ name: 'max', ramFraction: null, cpuWeight: 1000 }),
]) as readonly GuardTier[];

/** The tier used when no hint names one. */
export const DEFAULT_TIER: TierName = 'medium';

/** The tier named `name`, or `undefined`. */
export function tierNamed(name: string): GuardTier | undefined {
  return TIERS.find((t) => t.name === name);
}

/** The tier above `name` (`max` stays `max`). */
export function nextTierName(name: TierName): TierName {
  const i = TIERS.findIndex((t) => t.name === name);
  return TIERS[Math.min(i + 1, TIERS.length - 1)]!.name;
}

/** What a hint asks for. */
export interface ParsedHint {
  readonly memory: TierName;
  /** The cpu tier; the memory tier's when the hint names none. */
  readonly cpu: TierName;
  /** Tokens that were not understood (skipped). */
  readonly unknown: readonly string[];
}

const MEMORY_KEYS = new Set(['memory', 'mem', 'ram']);

/**
 * Parses an `AGENT_RESOURCE_HINT`-style hint (the tier table of uncoalesced/cordon, forgiving because a model writes
 * it): tokens split on `,`, `;` and whitespace; `key:value` with keys `memory|mem|ram` and
 * `cpu`; a bare value is a memory tier; values `low|medium|high|max`, case-insensitive. Unknown
 * tokens are returned in `unknown` and skipped; the last valid token of a kind wins.
 * Default: `memory:medium`, cpu following memory.
 */
export function parseHint(text: string | undefined): ParsedHint {
  let memory: TierName | undefined;
  let cpu: TierName | undefined;
  const unknown: string[] = [];
  for (const token of (text ?? '').split(/[,;\s]+/).filter(Boolean)) {
    const colon = token.indexOf(':');
    const key = colon < 0 ? 'memory' : token.slice(0, colon).toLowerCase();
    const value = (colon < 0 ? token : token.slice(colon + 1)).toLowerCase();
    const tier = tierNamed(value)?.name;
    if (tier && MEMORY_KEYS.has(key)) memory = tier;
    else if (tier && key === 'cpu') cpu = tier;
    else unknown.push(token);
  }
  const m = memory ?? DEFAULT_TIER;
  return { memory: m, cpu: cpu ?? m, unknown };
}

/**
 * The stall policy (enforce.ts {@link StallPolicy}): a 5 s window, 80 % of it fully stalled,
 * sampled every 250 ms. `CORDON_CONTROL_STALL_WINDOW_MS`, `CORDON_CONTROL_STALL_FULL` (0–1) and
 * `CORDON_CONTROL_POLL_MS` override them; out-of-range values keep the default.
 */
export function stallPolicy(env: NodeJS.ProcessEnv = process.env): StallPolicy {
  const num = (name: string, fallback: number, ok: (n: number) => boolean): number => {
    const n = Number(env[name]);
    return env[name] !== undefined && env[name] !== '' && Number.isFinite(n) && ok(n) ? n : fallback;
  };
  return {
    windowMs: num('CORDON_CONTROL_STALL_WINDOW_MS', 5000, (n) => n >= 100),
    fullFraction: num('CORDON_CONTROL_STALL_FULL', 0.8, (n) => n > 0 && n <= 1),
    pollMs: num('CORDON_CONTROL_POLL_MS', 250, (n) => n >= 10),
  };
}

/** `memory.high` of a tier over `ramBytes`; `null` = `max`. */
export function limitOf(tier: GuardTier, ramBytes: number): number | null {
  return tier.ramFraction === null ? null : Math.floor(tier.ramFraction * ramBytes);
}

/**
 * Bytes as whole MiB (2^20 bytes), which every label beside it calls MiB. The seed computes the
 * same number but labels it MB (2.5 % of 16 GiB is "410 MB", which is 430 MB); cordon says MiB,
 * as `reduce` and `analyze` do.
 */
export function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}
