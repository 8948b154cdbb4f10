import type { GuardTier } from '../events/enforce.js';

/**
 * A capability check shown by `cordon control probe` (uncoalesced/cordon).
 * Plugins register probes through `api.probes`; the host runs them all, in {@link order} then
 * name order, and owns the printing and the exit code: enforcement is available when some
 * backend has gate probes and every one of them is ok.
 */
export interface ProbeEntry {
  /** Probe name, e.g. `cgroup2`, `psi`. */
  readonly name: string;
  /** Position in the printed list (ascending; default 100); ties sort by name. */
  readonly order?: number;
  /**
   * The enforcement backend this probe gates (e.g. `cgroup-linux`): when set, the backend can
   * enforce only if this probe is ok. Unset: informational (PSI, sched_ext, swap …).
   */
  readonly gate?: string;
  /** Runs the check; never throws (report failures as `ok: false` with a reason). */
  readonly run: (context: ProbeContext) => Promise<ProbeResult>;
}

/** What the host hands every probe. */
export interface ProbeContext {
  /** The host's tier ladder (fractions of RAM and cpu.weight), for probes that print the tier table. */
  readonly tiers: readonly GuardTier[];
}

/** Outcome of one probe. */
export interface ProbeResult {
  /** True when the capability is usable here. */
  readonly ok: boolean;
  /** One line saying what was found and, when not ok, why. */
  readonly detail: string;
  /** When not ok: what the user can do about it (one line), e.g. a `systemd-run` command. */
  readonly fix?: string;
  /** Further lines printed under the detail (a table), indented by the host. */
  readonly lines?: readonly string[];
  /** Machine-readable findings for `--json` (numbers in bytes, names as the kernel spells them). */
  readonly data?: Readonly<Record<string, unknown>>;
}
