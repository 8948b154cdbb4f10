import { compileGlob, globListProblem } from '../glob.js';
import type { GlobRegexStore } from '../glob-store.js';

/**
 * Numeric budgets of an envelope. All inclusive: a value equal to its limit passes
 * (the BEKO2210/SkillQuarry cordon). Units: files, lines, bytes.
 */
export interface Limits {
  readonly max_files: number;
  readonly max_added_lines: number;
  readonly max_deleted_lines: number;
  /** Sum of the current on-disk sizes of the changed paths that exist (the BEKO2210/SkillQuarry cordon), bytes. */
  readonly max_working_bytes: number;
  readonly max_binary_files: number;
}

/** The path and size policy an envelope is armed with (stored in `.cordon/config.json`). */
export interface Policy {
  /** Globs a changed path must match (at least one). */
  readonly allow: readonly string[];
  /** Globs no changed path may match; deny wins over allow. */
  readonly deny: readonly string[];
  /** Ignored paths that may appear, change or vanish after arming without a violation. */
  readonly allow_ignored: readonly string[];
  /** Whether HEAD may move away from the baseline (commits are still audited). */
  readonly allow_commits: boolean;
  readonly limits: Limits;
}

/** The `.cordon.json` key and flag name (without `--`) a policy glob is given under. */
export type GlobKey = 'allow' | 'deny' | 'allow-ignored';

/**
 * Every glob of `policy` with the key it was given under: allow, then deny, then allow-ignored,
 * each in its given order (the order arm's warnings are printed in).
 */
export function keyedGlobs(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>): Array<{ readonly key: GlobKey; readonly glob: string }> {
  return [
    ...policy.allow.map((glob) => ({ key: 'allow' as const, glob })),
    ...policy.deny.map((glob) => ({ key: 'deny' as const, glob })),
    ...policy.allow_ignored.map((glob) => ({ key: 'allow-ignored' as const, glob })),
  ];
}

/** The reference's defaults (the BEKO2210/SkillQuarry cordon). */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  max_files: 25,
  max_added_lines: 2000,
  max_deleted_lines: 1000,
  max_working_bytes: 2 * 1024 * 1024,
  max_binary_files: 2,
});

/** At most this many globs in allow + deny + allow_ignored together (the BEKO2210/SkillQuarry cordon). */
export const MAX_PATTERNS = 256;
/** Longest label, in characters (the BEKO2210/SkillQuarry cordon). */
export const MAX_LABEL_LENGTH = 16_384;

export const LIMIT_KEYS = ['max_files', 'max_added_lines', 'max_deleted_lines', 'max_working_bytes', 'max_binary_files'] as const;

/**
 * The first problem with `policy`, phrased to follow "policy …", or undefined. Checks the exact
 * shape (stored policies are re-validated on every load: the BEKO2210/SkillQuarry cordon V4), the glob
 * rules of glob.ts, the pattern cap and that limits are non-negative safe integers (V2).
 */
export function policyProblem(policy: unknown): string | undefined {
  if (!isPlainObject(policy)) return 'policy is not an object';
  const keys = ['allow', 'allow_commits', 'allow_ignored', 'deny', 'limits'];
  const extra = exactKeys(policy, keys);
  if (extra) return `policy ${extra}`;
  for (const key of ['allow', 'deny', 'allow_ignored'] as const) {
    const list = policy[key];
    if (!Array.isArray(list)) return `policy ${key} is not a list`;
    const problem = globListProblem(`policy ${key}`, list);
    if (problem) return problem;
  }
  if ((policy.allow as unknown[]).length === 0) return 'at least one --allow glob is required (a flag, or `allow` in .cordon.json)';
  const total = (policy.allow as unknown[]).length + (policy.deny as unknown[]).length + (policy.allow_ignored as unknown[]).length;
  if (total > MAX_PATTERNS) return `too many globs: ${total} > ${MAX_PATTERNS}`;
  if (typeof policy.allow_commits !== 'boolean') return 'policy allow_commits is not a boolean';
  const limits = policy.limits;
  if (!isPlainObject(limits)) return 'policy limits is not an object';
  const extraLimit = exactKeys(limits, [...LIMIT_KEYS]);
  if (extraLimit) return `policy limits ${extraLimit}`;
  for (const key of LIMIT_KEYS) {
    const problem = limitProblem(limits[key]);
    if (problem) return `${key} ${problem}`;
  }
  return undefined;
}

/** Why `value` is not a valid budget (a non-negative safe integer; booleans refused), or undefined. */
export function limitProblem(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? undefined : 'must be a non-negative integer';
}

/** Why `label` is not a valid envelope label (after trimming: non-blank, ≤ 16384 characters), or undefined. */
export function labelProblem(label: unknown): string | undefined {
  if (typeof label !== 'string' || label.trim() === '') return 'label must not be empty';
  const length = label.trim().length;
  if (length > MAX_LABEL_LENGTH) return `label is ${length} characters long (after trimming); the limit is ${MAX_LABEL_LENGTH}`;
  return undefined;
}

/** How the policy judged one path. */
export type PathDecision = { readonly allowed: true } | { readonly allowed: false; readonly deniedBy?: string };

/** Compiled form of a policy's path rules (compile once per audit). */
export interface PathRules {
  decide(path: string): PathDecision;
  /** True when an `allow_ignored` glob matches `path`. */
  ignoredAllowed(path: string): boolean;
}

/**
 * Why `check` and the live envelope refuse a path `decide` did not allow, in the words of both
 * (`matches the deny glob src/secrets/**`, `matches no allow glob`): one phrase for the two judges.
 */
export function refusalWhy(decision: Extract<PathDecision, { allowed: false }>): string {
  return decision.deniedBy !== undefined ? `matches the deny glob ${decision.deniedBy}` : 'matches no allow glob';
}

/**
 * True for a `.gitattributes` file at any depth: `check` rejects every change to one (attributes
 * decide how git counts changes), so the live envelope refuses writing one too.
 */
export function isAttributesPath(path: string): boolean {
  return path === '.gitattributes' || path.endsWith('/.gitattributes');
}

const ALLOWED: PathDecision = Object.freeze({ allowed: true });
const NOT_ALLOWED: PathDecision = Object.freeze({ allowed: false });

/**
 * Compiles `policy`'s globs (through `store` when given: the hook's live envelope). Deny is
 * evaluated first and wins (the BEKO2210/SkillQuarry cordon).
 */
export function compilePathRules(policy: Pick<Policy, 'allow' | 'deny' | 'allow_ignored'>, store?: GlobRegexStore): PathRules {
  const allow = policy.allow.map((g) => compileGlob(g, store));
  const denyGlobs = policy.deny;
  const deny = denyGlobs.map((g) => compileGlob(g, store));
  const ignored = policy.allow_ignored.map((g) => compileGlob(g, store));
  return {
    // Called once per changed path (100,000s on a large change): plain loops and shared results.
    decide(path) {
      for (let i = 0; i < deny.length; i++) if (deny[i]!(path)) return { allowed: false, deniedBy: denyGlobs[i]! };
      for (let i = 0; i < allow.length; i++) if (allow[i]!(path)) return ALLOWED;
      return NOT_ALLOWED;
    },
    ignoredAllowed: (path) => ignored.some((m) => m(path)),
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** "has unknown key x" / "lacks key y", or undefined when `obj` has exactly `keys` (plus any of `optional`). */
export function exactKeys(obj: Record<string, unknown>, keys: readonly string[], optional: readonly string[] = []): string | undefined {
  for (const k of Object.keys(obj)) if (!keys.includes(k) && !optional.includes(k)) return `has unknown key ${JSON.stringify(k)}`;
  for (const k of keys) if (!(k in obj)) return `lacks key ${JSON.stringify(k)}`;
  return undefined;
}
