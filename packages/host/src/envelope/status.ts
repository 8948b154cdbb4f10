import { discoverRepo } from './git/repo.js';
import type { Phase } from './phases.js';
import type { AuditRecord } from './audit/record.js';
import type { Limits } from './policy/policy.js';
import { loadEnvelope } from './state/store.js';
import { staleRunReason } from './attempt/stale.js';

/** What `cordon status` reports (research §13, plus the policy's globs and limits). */
export interface StatusReport {
  readonly mode: string;
  readonly label: string;
  readonly baseline: string;
  readonly phase: Phase;
  readonly attempt: number;
  readonly max_attempts: number;
  readonly last_error: string | null;
  readonly last_audit: AuditRecord | null;
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  readonly allow_ignored: readonly string[];
  readonly allow_commits: boolean;
  readonly limits: Limits;
  readonly verify: readonly string[];
  readonly created_at: string;
  readonly updated_at: string;
  /** Why phase `running` is stale (the cordon process that ran the attempt is gone), else null (issue 3). */
  readonly stale_run: string | null;
}

/**
 * `cordon status`: validates the whole envelope (research §4.5) and summarises it. Takes no
 * lock, so it works while a `run` holds one and then shows phase `running` (§11).
 * Throws `CORDON_BAD_STATE` (exit 2) when nothing is armed or the state is corrupt.
 */
export async function status(repo: string = process.cwd()): Promise<StatusReport> {
  const loc = await discoverRepo(repo);
  const { config, state } = loadEnvelope(loc);
  return {
    mode: config.mode,
    label: config.label,
    baseline: config.baseline,
    phase: state.phase,
    attempt: state.attempt,
    max_attempts: state.max_attempts,
    last_error: state.last_error,
    last_audit: state.last_audit,
    allow: config.policy.allow,
    deny: config.policy.deny,
    allow_ignored: config.policy.allow_ignored,
    allow_commits: config.policy.allow_commits,
    limits: config.policy.limits,
    verify: config.verify.commands,
    created_at: config.created_at,
    updated_at: state.updated_at,
    stale_run: staleRunReason(state, loc.lockFile) ?? null,
  };
}
