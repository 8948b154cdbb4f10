import type { Violation } from '@cordon/plugin-api';
import type { AuditRecord } from '../audit/record.js';
import type { VerifierResult } from '../verify/run.js';

/** A violation and, for `verifier_failed`, the failed verifier it is about. */
export interface PairedViolation {
  readonly violation: Violation;
  readonly verifier?: VerifierResult;
}

/**
 * The audit's violations in order, each `verifier_failed` one paired with its failed result:
 * the audit makes those violations in the order of the failed results (audit/run-audit.ts).
 */
export function pairFailedVerifiers(audit: AuditRecord): PairedViolation[] {
  const failed = audit.verification.filter((v) => !v.passed);
  return audit.violations.map((violation) => {
    const verifier = violation.code === 'verifier_failed' ? failed.shift() : undefined;
    return verifier ? { violation, verifier } : { violation };
  });
}
