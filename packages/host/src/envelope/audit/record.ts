import type { Violation } from '@cordon/plugin-api';
import type { IgnoredChange, IgnoredOverlay } from '../evidence/untracked.js';
import type { Limits } from '../policy/policy.js';
import type { VerifierResult } from '../verify/run.js';
import type { ShownRename } from './file-status.js';

/** What the audit measured (the BEKO2210/SkillQuarry cordon). Units: files, lines, bytes. */
export interface Metrics {
  readonly files: number;
  readonly added_lines: number;
  readonly deleted_lines: number;
  readonly working_bytes: number;
  readonly binary_files: number;
}

/**
 * The audit object `cordon check --json` prints and `.cordon/audit.json` and `state.last_audit`
 * store (the BEKO2210/SkillQuarry cordon, extended). Paths are in their lossless text form (path-text.ts):
 * bytes that are not UTF-8 appear as `\udcXX` escapes.
 */
export interface AuditRecord {
  /** True exactly when `violations` is empty. */
  readonly passed: boolean;
  /** `envelope` (armed, work tree) or `range` (`--base`/`--head`, committed content only). */
  readonly mode: 'envelope' | 'range';
  readonly baseline: string;
  /** HEAD now (envelope) or the `--head` commit (range). */
  readonly current_head: string;
  readonly head_changed: boolean;
  /** Every changed path, sorted by its bytes: tracked changes (both sides of a rename, deletions, mode changes) and untracked files. */
  readonly changed_files: readonly string[];
  /**
   * How each path of `changed_files` changed: one of git's `--raw` status letters per path, at
   * the same index (`A` added, `M` modified, `D` deleted, `T` type changed, `U` unmerged, `X`
   * unknown; git-diff(1) "Raw output format"; an untracked file is `A`). One string, not a list:
   * at 1,250 changed paths a list of words cost the check 2 % more instructions to write, read
   * back and validate (`scripts/instructions.sh`). Absent in records written by an older cordon.
   */
  readonly changed_file_status?: string;
  /**
   * Deleted and added paths with the same content, shown as renames (`old -> new`) in the
   * verdict; both paths stay in `changed_files` and count. Absent when there is none.
   */
  readonly shown_renames?: readonly ShownRename[];
  readonly metrics: Metrics;
  readonly limits: Limits;
  readonly violations: readonly Violation[];
  /** Ignored entries that appeared, changed or vanished and no `--allow-ignored` glob covers. */
  readonly ignored_changes: readonly IgnoredChange[];
  /**
   * Verifier executables an `--allow-ignored` glob covers that appeared, changed or vanished since
   * arm (`node_modules/.bin/tape`; evidence/verifier-tools.ts): allowed, so not violations, but
   * reported (and named in `notes`) because a rewritten test runner can fake a pass. Envelope
   * audits only; absent for envelopes armed by an older cordon.
   */
  readonly allowed_ignored_changes?: readonly IgnoredChange[];
  /** One entry per verifier that ran; empty when the policy audit failed first. */
  readonly verification: readonly VerifierResult[];
  /** True when verifiers were configured but not run because the policy audit failed. */
  readonly verification_skipped: boolean;
  /**
   * What the audit could not do as git would, or did on the user's behalf, in words (a filter
   * driver it did not run, ignored paths the verifiers changed). Not violations.
   */
  readonly notes?: readonly string[];
  /**
   * Ignored entries as the verifiers cordon ran left them, carried from check to check (the
   * previous record's, updated by this check's verifiers): the next check compares ignored
   * entries with these instead of the arm-time fingerprints. Absent when no
   * verifier ever changed an ignored entry.
   */
  readonly ignored_after_verifiers?: IgnoredOverlay;
}
