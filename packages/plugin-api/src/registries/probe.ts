/**
 * A capability check shown by `cordon control probe` (research/cordon-resource.md A.8).
 */
export interface ProbeEntry {
  /** Probe name, e.g. `cgroup2.memory`, `psi`. */
  readonly name: string;
  /** Runs the check; never throws (report failures as `ok: false` with a reason). */
  readonly run: () => Promise<ProbeResult>;
}

/** Outcome of one probe. */
export interface ProbeResult {
  /** True when the capability is usable here. */
  readonly ok: boolean;
  /** One line saying what was found and, when not ok, why. */
  readonly detail: string;
}
