/**
 * Change envelopes as a plain library (docs/ARCHITECTURE.md "Layout"): the oclif commands
 * `arm`/`check`/`status`/`reset` and the `run`/`resume` helper sit on top of this.
 * See README.md in this folder for the map.
 */
export { arm, type ArmOptions, type ArmRequest } from './arm.js';
export { check, checkLocked, checkRange, policyFileAt, type CheckOptions, type CheckResult, type RangeOptions } from './check.js';
export { status, type StatusReport } from './status.js';
export { reset } from './reset.js';
export { auditEnvelope, auditRange, type AuditHooks, type AuditHooksSource, type EnvelopeAuditInput, type RangeAuditInput } from './audit/run-audit.js';
export type { AuditRecord, Metrics } from './audit/record.js';
export { budgetViolations } from './audit/budgets.js';
export { acquireLock, withLock, readLock, isStale, type LockHandle, type LockRecord } from './lock.js';
export { PHASES, isPhase, phaseAfterCheck, attemptRefusal, beginAttempt, finishAttempt, type Phase, type PhaseState, type AttemptOutcome } from './phases.js';
export { resolveSettings, parsePolicyFile, readPolicyFile, checkLabel, POLICY_FILE, DEFAULT_MAX_ATTEMPTS, type SettingsInput, type EnvelopeSettings } from './settings.js';
export { DEFAULT_LIMITS, compilePathRules, policyProblem, type Limits, type Policy, type PathRules } from './policy/policy.js';
export { runVerifiers, runVerifier, failureReason, TRUNCATION_MARKER, type VerifierResult, type VerifierContext } from './verify/run.js';
export { splitCommand, DEFAULT_VERIFY_TIMEOUT_SECONDS, DEFAULT_VERIFY_OUTPUT_CAP, MAX_VERIFIERS, type VerifySpec } from './verify/spec.js';
export { runManaged, killGroup, signalGroup, succeeded, type ManagedChild, type ManagedOptions, type ManagedResult } from './process.js';
export { discoverRepo, resolveCommit, baseGitEnv, type RepoLocation } from './git/repo.js';
export { loadEnvelope, saveState, saveAuditAndState, envelopePaths, envelopeExists, removeEnvelope, CORDON_DIR, type Envelope, type EnvelopePaths } from './state/store.js';
export { SCHEMA_VERSION, type EnvelopeConfig, type EnvelopeSnapshot, type EnvelopeState } from './state/schema.js';
export { canonicalJson } from './state/canonical-json.js';
export { writeFileAtomic } from '../io/atomic-write.js';
export { pathText, pathBytes, displayPath } from './path-text.js';
export { matchGlob, compileGlob, globProblem, GLOB_OPTIONS } from './glob.js';
export { renderAudit, renderStatus } from './render.js';
