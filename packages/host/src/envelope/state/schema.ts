import { OBJECT_ID } from '../git/repo.js';
import type { GitRules } from '../git/shadow.js';
import type { IgnoredSnapshot } from '../evidence/untracked.js';
import { isPhase, type Phase } from '../phases.js';
import { exactKeys, isPlainObject, labelProblem, policyProblem, type Policy } from '../policy/policy.js';
import { verifySpecProblem, type VerifySpec } from '../verify/spec.js';
import { streamCutProblem } from '../verify/evidence.js';
import type { AuditRecord } from '../audit/record.js';
import { isoTimestamp } from '../../util/clock.js';

/** Version of every `.cordon/*.json` file this code reads and writes. */
export const SCHEMA_VERSION = 1;

/** `.cordon/config.json`: written once, at arm (the BEKO2210/SkillQuarry cordon, plus `policy.allow_ignored`, `verify`, `runner`, `repo`). */
export interface EnvelopeConfig {
  readonly schema_version: 1;
  /** `manual` for `cordon arm`; a runner name (e.g. `claude-code`) for `cordon run`. */
  readonly mode: string;
  /** Task text, trimmed. */
  readonly label: string;
  /** Full commit id of HEAD at arm time. */
  readonly baseline: string;
  /** ISO-8601 UTC, to the second. */
  readonly created_at: string;
  readonly policy: Policy;
  readonly verify: VerifySpec;
  /** Options of the agent runner for `run`/`resume` (opaque here; the runner validates it), or null. */
  readonly runner: Readonly<Record<string, unknown>> | null;
  /** Where the envelope was armed; a check elsewhere (a moved tree, a redirected `core.worktree`) is refused. */
  readonly repo: { readonly root: string; readonly git_dir: string };
  /**
   * Whether `cordon hook` refuses an agent's file writes outside the policy before they happen
   * (the live envelope, docs/envelopes.md): `cordon run` and `cordon arm --live` set it; absent
   * (envelopes armed before it existed) means off.
   */
  readonly live?: boolean;
}

/** `.cordon/snapshot.json`: what arming saw besides the baseline commit. */
export interface EnvelopeSnapshot {
  readonly schema_version: 1;
  /** Arm-time git settings and rule files. */
  readonly git: GitRules;
  /** Arm-time ignored entries and `.gitignore` rules. */
  readonly ignored: IgnoredSnapshot;
  /** Submodule path → fingerprint of its work tree. */
  readonly submodules: Readonly<Record<string, string>>;
}

/** `.cordon/state.json`: rewritten on every transition (the BEKO2210/SkillQuarry cordon). */
export interface EnvelopeState {
  readonly schema_version: 1;
  readonly phase: Phase;
  readonly attempt: number;
  readonly max_attempts: number;
  /** SHA-256 of config.json's canonical body (no trailing newline). */
  readonly config_sha256: string;
  /** SHA-256 of snapshot.json's canonical body. */
  readonly snapshot_sha256: string;
  /** SHA-256 of `info/exclude` after `/.cordon/` was registered. */
  readonly exclude_sha256: string;
  readonly last_error: string | null;
  readonly last_audit: AuditRecord | null;
  /** ISO-8601 UTC. */
  readonly updated_at: string;
  /** The latest agent attempt of `run`/`resume` (shape: `AttemptRun` in attempt/record.ts); absent until the first one. */
  readonly last_run?: Readonly<Record<string, unknown>> | null;
}

const SHA256 = /^[0-9a-f]{64}$/;
const MODE = /^[a-z][a-z0-9-]{0,63}$/;

/** The first problem of a parsed config.json, or undefined (the BEKO2210/SkillQuarry cordon). */
export function configProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'config is not a JSON object';
  const keys = exactKeys(value, ['baseline', 'created_at', 'label', 'mode', 'policy', 'repo', 'runner', 'schema_version', 'verify'], ['live']);
  if (keys) return `config ${keys}`;
  if (value.live !== undefined && typeof value.live !== 'boolean') return 'config live is not a boolean';
  if (value.schema_version !== SCHEMA_VERSION) return `config schema_version is not ${SCHEMA_VERSION}`;
  if (typeof value.mode !== 'string' || !MODE.test(value.mode)) return 'config mode is invalid';
  const label = labelProblem(value.label);
  if (label) return `config ${label}`;
  if (typeof value.label === 'string' && value.label !== value.label.trim()) return 'config label is not trimmed';
  if (typeof value.baseline !== 'string' || !OBJECT_ID.test(value.baseline)) return 'config baseline is not a commit id';
  if (typeof value.created_at !== 'string' || value.created_at === '') return 'config created_at is empty';
  const policy = policyProblem(value.policy);
  if (policy) return `config ${policy}`;
  const verify = verifySpecProblem(value.verify);
  if (verify) return `config ${verify}`;
  if (value.runner !== null && !isPlainObject(value.runner)) return 'config runner is neither an object nor null';
  if (!isPlainObject(value.repo) || exactKeys(value.repo, ['git_dir', 'root']) || typeof value.repo.root !== 'string' || typeof value.repo.git_dir !== 'string') return 'config repo is invalid';
  return undefined;
}

/** The first problem of a parsed snapshot.json, or undefined. */
export function snapshotProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'snapshot is not a JSON object';
  const keys = exactKeys(value, ['git', 'ignored', 'schema_version', 'submodules']);
  if (keys) return `snapshot ${keys}`;
  if (value.schema_version !== SCHEMA_VERSION) return `snapshot schema_version is not ${SCHEMA_VERSION}`;
  const git = value.git;
  if (!isPlainObject(git) || exactKeys(git, ['attributes_file', 'excludes_file', 'info_attributes', 'info_exclude', 'settings'])) return 'snapshot git is invalid';
  if (!isStringMap(git.settings)) return 'snapshot git settings is invalid';
  for (const key of ['attributes_file', 'excludes_file', 'info_attributes', 'info_exclude']) if (git[key] !== null && typeof git[key] !== 'string') return `snapshot git ${key} is invalid`;
  const ignored = value.ignored;
  if (!isPlainObject(ignored) || exactKeys(ignored, ['entries', 'gitignores'], ['verifier_tools']) || !isStringMap(ignored.entries) || !isStringMap(ignored.gitignores)) return 'snapshot ignored is invalid';
  if (ignored.verifier_tools !== undefined && !isStringMap(ignored.verifier_tools)) return 'snapshot ignored verifier_tools is invalid';
  if (!isStringMap(value.submodules)) return 'snapshot submodules is invalid';
  return undefined;
}

/** The first problem of a parsed state.json, or undefined (the BEKO2210/SkillQuarry cordon T3). */
export function stateProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'state is not a JSON object';
  const keys = exactKeys(value, ['attempt', 'config_sha256', 'exclude_sha256', 'last_audit', 'last_error', 'max_attempts', 'phase', 'schema_version', 'snapshot_sha256', 'updated_at'], ['last_run']);
  if (keys) return `state ${keys}`;
  if (value.schema_version !== SCHEMA_VERSION) return `state schema_version is not ${SCHEMA_VERSION}`;
  if (!isPhase(value.phase)) return `state phase ${JSON.stringify(value.phase)} is unknown`;
  if (typeof value.max_attempts !== 'number' || !Number.isSafeInteger(value.max_attempts) || value.max_attempts < 1) return 'state max_attempts must be an integer >= 1';
  if (typeof value.attempt !== 'number' || !Number.isSafeInteger(value.attempt) || value.attempt < 0) return 'state attempt must be a non-negative integer';
  if (value.attempt > value.max_attempts) return 'state attempt exceeds max_attempts';
  for (const key of ['config_sha256', 'snapshot_sha256', 'exclude_sha256']) if (typeof value[key] !== 'string' || !SHA256.test(value[key] as string)) return `state ${key} is not a SHA-256`;
  if (value.last_error !== null && typeof value.last_error !== 'string') return 'state last_error is neither a string nor null';
  if (value.last_audit !== null) {
    const audit = auditRecordProblem(value.last_audit);
    if (audit) return `state last_audit is malformed: ${audit}`;
  }
  if (typeof value.updated_at !== 'string' || value.updated_at === '') return 'state updated_at is empty';
  if (value.last_run !== undefined && value.last_run !== null && !isPlainObject(value.last_run)) return 'state last_run is neither an object nor null';
  return undefined;
}

/**
 * The first problem of a stored audit record (`state.last_audit`), or undefined: every field a
 * command reads from it (status, check's verifier overlay, resume's recovery context) has its
 * type, so a damaged record is refused as damaged state instead of failing later with a
 * TypeError.
 */
export function auditRecordProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not an object';
  if (typeof value.passed !== 'boolean') return 'passed is not a boolean';
  if (value.mode !== 'envelope' && value.mode !== 'range') return 'mode is neither envelope nor range';
  for (const key of ['baseline', 'current_head']) if (typeof value[key] !== 'string') return `${key} is not a string`;
  if (typeof value.head_changed !== 'boolean') return 'head_changed is not a boolean';
  if (!Array.isArray(value.changed_files) || !value.changed_files.every((p) => typeof p === 'string')) return 'changed_files is not a list of paths';
  // Both absent in records of an older cordon.
  const status = value.changed_file_status;
  if (status !== undefined && !(typeof status === 'string' && status.length === value.changed_files.length && /^[ADMTUX]*$/.test(status))) return 'changed_file_status is not one status letter (A, D, M, T, U, X) per changed file';
  const renames = value.shown_renames;
  if (renames !== undefined && !(Array.isArray(renames) && renames.every((r) => isPlainObject(r) && typeof r.from === 'string' && typeof r.to === 'string'))) return 'shown_renames is not a list of {from, to}';
  for (const key of ['metrics', 'limits']) {
    const numbers = value[key];
    if (!isPlainObject(numbers) || !Object.values(numbers).every((n) => typeof n === 'number')) return `${key} is not an object of numbers`;
  }
  if (!Array.isArray(value.violations) || !value.violations.every((v) => isPlainObject(v) && typeof v.code === 'string' && typeof v.message === 'string')) return 'violations is not a list of {code, message}';
  if (!Array.isArray(value.ignored_changes) || !value.ignored_changes.every((c) => isPlainObject(c) && typeof c.path === 'string')) return 'ignored_changes is not a list of {path, change}';
  const verifierOk = (v: unknown) =>
    isPlainObject(v) && typeof v.command === 'string' && typeof v.passed === 'boolean' && typeof v.stdout === 'string' && typeof v.stderr === 'string' && typeof v.duration_ms === 'number' && (v.start_error === null || typeof v.start_error === 'string');
  if (!Array.isArray(value.verification) || !value.verification.every(verifierOk)) return 'verification is not a list of verifier results';
  for (const [i, v] of (value.verification as Array<Record<string, string>>).entries()) {
    for (const which of ['stdout', 'stderr'] as const) {
      const problem = streamCutProblem(v[`${which}_cut`], v[which]!);
      if (problem) return `verification[${i}].${which}_cut ${problem}`;
    }
  }
  if (typeof value.verification_skipped !== 'boolean') return 'verification_skipped is not a boolean';
  if (value.notes !== undefined && !(Array.isArray(value.notes) && value.notes.every((n) => typeof n === 'string'))) return 'notes is not a list of strings';
  if (value.ignored_after_verifiers !== undefined && !isStringMap(value.ignored_after_verifiers)) return 'ignored_after_verifiers is not a map of fingerprints';
  if (value.allowed_ignored_changes !== undefined && !(Array.isArray(value.allowed_ignored_changes) && value.allowed_ignored_changes.every((c) => isPlainObject(c) && typeof c.path === 'string'))) return 'allowed_ignored_changes is not a list of {path, change}';
  return undefined;
}

function isStringMap(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

/** ISO-8601 UTC timestamp to the second, e.g. `2026-11-30T02:08:29Z`. */
export function nowIso(): string {
  return isoTimestamp().replace(/\.\d{3}Z$/, 'Z');
}
