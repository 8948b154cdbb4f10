import { cutTextMiddle } from '@cordon/plugin-api';
import type { AttemptBrief, FailedVerifier, RecoveryContext } from '@cordon/plugin-api';
import type { AuditRecord } from '../audit/record.js';
import type { EnvelopeConfig } from '../state/schema.js';
import { failureReason } from '../verify/run.js';

/** Changed paths listed in the recovery context before "(+N more)". */
export const RECOVERY_PATHS = 50;
/** Characters of a failed verifier's output in the recovery context (the BEKO2210/SkillQuarry cordon: 2,000). */
export const VERIFIER_OUTPUT_CHARS = 2000;

/**
 * The agent-neutral prompt of one attempt (the BEKO2210/SkillQuarry cordon, in our own words). In order: that
 * the work happens inside an envelope, the task, the allowed and denied globs, every budget,
 * the commit rule (matching `--allow-commits`, defect C10), what not to touch, that cordon
 * audits and verifies on its own so a claim of success proves nothing, the attempt number, and
 * on a resume the recovery context. Runners may add lines about their agent.
 */
export function renderBrief(brief: AttemptBrief): string {
  const { limits } = brief;
  const lines = [
    'You are working inside a cordon change envelope: an audit of this Git repository that runs after you finish.',
    '',
    'Task:',
    brief.task,
    '',
    'Envelope rules:',
    `- Change only paths matching: ${brief.allow.join(', ')}`,
    `- Never change paths matching: ${brief.deny.length ? brief.deny.join(', ') : '(none)'}`,
    `- Budgets, inclusive: changed files <= ${limits.max_files}; added lines <= ${limits.max_added_lines}; deleted lines <= ${limits.max_deleted_lines}; working bytes <= ${limits.max_working_bytes} (the summed size of every changed file); binary files <= ${limits.max_binary_files}.`,
    brief.allowCommits
      ? '- Commits are allowed; committed changes are audited exactly like uncommitted ones.'
      : '- Do not commit. Leave every change in the working tree; a moved HEAD is a violation.',
    '- Do not reset, clean, stash or check out over work, do not change Git configuration, ignore or attribute files, and do not touch .cordon/.',
    `- When you stop, cordon inspects the working tree itself${brief.verifiers.length ? ` and runs these verifiers: ${brief.verifiers.map((v) => `\`${v}\``).join(', ')}` : ''}. Saying the task is done proves nothing; only the audit decides.`,
    '',
    `Attempt: ${brief.attempt} of ${brief.maxAttempts}`,
  ];
  if (brief.recovery) lines.push('', ...renderRecovery(brief.recovery));
  return lines.join('\n') + '\n';
}

function renderRecovery(r: RecoveryContext): string[] {
  const lines = [`Recovery context: attempt ${r.previousAttempt} did not end accepted, and its changes are still in the working tree.`];
  lines.push(`Previous attempt ended with: ${r.previousError ?? '(no error was recorded)'}`);
  if (r.changedCount === 0) lines.push('Paths changed so far: none');
  else {
    lines.push(`Paths changed so far (${r.changedCount}):`);
    for (const path of r.changedPaths) lines.push(`- ${path}`);
    if (r.changedCount > r.changedPaths.length) lines.push(`- (+${r.changedCount - r.changedPaths.length} more)`);
  }
  if (r.failedVerifiers.length) {
    lines.push('Failed verifiers:');
    for (const v of r.failedVerifiers) {
      lines.push(`- \`${v.command}\` (${v.outcome}):`);
      if (v.output.trim() !== '') lines.push(...v.output.replace(/\s+$/, '').split('\n').map((l) => `    ${l}`));
    }
  }
  return lines;
}

/** The brief of attempt `attempt` of the envelope `config`. */
export function briefFor(config: EnvelopeConfig, attempt: number, maxAttempts: number, recovery?: RecoveryContext): AttemptBrief {
  const { policy } = config;
  return {
    task: config.label,
    allow: policy.allow,
    deny: policy.deny,
    limits: policy.limits,
    allowCommits: policy.allow_commits,
    verifiers: config.verify.commands,
    attempt,
    maxAttempts,
    ...(recovery ? { recovery } : {}),
  };
}

/**
 * The recovery context of a resume (the BEKO2210/SkillQuarry cordon): the previous error, the paths
 * changed right now (from the preflight audit, so they are current), and the verifiers that
 * failed in the last full audit with up to 2,000 characters of their stderr, else stdout: its
 * start and its end (the test runner's summary), the middle left out.
 */
export function recoveryFor(previousAttempt: number, previousError: string | null, current: AuditRecord, lastFull: AuditRecord | null): RecoveryContext {
  const failedVerifiers: FailedVerifier[] = (lastFull?.verification ?? [])
    .filter((v) => !v.passed)
    .map((v) => ({ command: v.command, outcome: failureReason(v), output: cutTextMiddle(v.start_error ?? (v.stderr.trim() !== '' ? v.stderr : v.stdout), VERIFIER_OUTPUT_CHARS, '\n...[middle left out]...\n') }));
  return {
    previousAttempt,
    previousError,
    changedPaths: current.changed_files.slice(0, RECOVERY_PATHS),
    changedCount: current.changed_files.length,
    failedVerifiers,
  };
}
