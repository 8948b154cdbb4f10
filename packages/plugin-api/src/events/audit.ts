/**
 * The envelope audit event: fired on `audit` while `cordon check` gathers evidence, so plugins
 * can add violations of their own (the BEKO2210/SkillQuarry cordon).
 */

/** One reason an envelope rejects the result. */
export interface Violation {
  /** Stable machine code, e.g. `path_outside_allow`, `max_files_exceeded`. */
  readonly code: string;
  /** One human line naming the offending input. */
  readonly message: string;
  /** Repo-relative path the violation is about, when there is one (lossless: see `pathBytes`). */
  readonly path?: string;
  /** The limit, when a budget was exceeded. */
  readonly limit?: number;
  /** The measured value, when a budget was exceeded. */
  readonly actual?: number;
  /** Plugin that added it; empty for the host's own checks. */
  readonly source?: string;
}

/** Mutable context handed to `audit` taps; taps push to `violations`. */
export interface AuditContext {
  /** Absolute path of the work-tree root. */
  readonly repoRoot: string;
  /** Baseline commit the envelope was armed at (or `--base`). */
  readonly baseline: string;
  /** Changed repo-relative paths as the host saw them (display form). */
  readonly changedPaths: readonly string[];
  /** Metrics measured by the host, by name (`files`, `added_lines`, …). */
  readonly metrics: Readonly<Record<string, number>>;
  /** Violations so far; taps append. */
  readonly violations: Violation[];
}
