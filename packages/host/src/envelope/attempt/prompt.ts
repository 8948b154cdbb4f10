import { cutText, cutTextEnd, wellFormed } from '@cordon/plugin-api';
import type { AttemptBrief, FailedVerifier, RecoveryContext } from '@cordon/plugin-api';
import type { AuditRecord } from '../audit/record.js';
import type { EnvelopeConfig } from '../state/schema.js';
import { failureReason, type VerifierResult } from '../verify/run.js';
import { byteSize } from '../../output/byte-size.js';
import { shownVerifierText, streamEvidence, TRUNCATION_MARKER } from '../verify/evidence.js';

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
    `- Budgets, inclusive: changed files <= ${limits.max_files}; added lines <= ${limits.max_added_lines}; deleted lines <= ${limits.max_deleted_lines}; working bytes <= ${limits.max_working_bytes} (${limits.max_working_bytes >= 1024 ? `${byteSize(limits.max_working_bytes)}, ` : ''}the summed size of every changed file); binary files <= ${limits.max_binary_files}.`,
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
 * start and its end (the test runner's summary), the middle left out ({@link recoveryOutput}).
 */
export function recoveryFor(previousAttempt: number, previousError: string | null, current: AuditRecord, lastFull: AuditRecord | null): RecoveryContext {
  const failedVerifiers: FailedVerifier[] = (lastFull?.verification ?? [])
    .filter((v) => !v.passed)
    .map((v) => ({ command: v.command, outcome: failureReason(v), output: v.start_error ?? recoveryOutput(v) }));
  return {
    previousAttempt,
    previousError,
    changedPaths: current.changed_files.slice(0, RECOVERY_PATHS),
    changedCount: current.changed_files.length,
    failedVerifiers,
  };
}

/** Where the recovery context leaves out the middle of a verifier's output. */
const MIDDLE_LEFT_OUT = '\n...[middle left out]...\n';

/**
 * The output of failed verifier `v` for the recovery context: its stderr if that holds text,
 * else its stdout, at most {@link VERIFIER_OUTPUT_CHARS} UTF-16 units: whole when it fits, else
 * its first quarter and its last three quarters of that budget around {@link MIDDLE_LEFT_OUT}
 * (which stands for the middle cordon left out of the evidence too). The verifier's text is shown
 * through verify/evidence.ts `shownVerifierText`, again on each kept piece (a cut can make a
 * line's end or start look like a note), so a marker it printed cannot pass for cordon's.
 */
function recoveryOutput(v: VerifierResult): string {
  const evidence = streamEvidence(v, v.stderr.trim() !== '' ? 'stderr' : 'stdout');
  const end = evidence.kind === 'end' ? TRUNCATION_MARKER : '';
  const head = shownVerifierText(evidence.kind === 'whole' ? evidence.text : evidence.head);
  const tail = evidence.kind === 'middle' ? shownVerifierText(evidence.tail) : undefined;
  const whole = tail === undefined ? head + end : head + MIDDLE_LEFT_OUT + tail;
  if (whole.length <= VERIFIER_OUTPUT_CHARS) return wellFormed(whole);
  const from = tail ?? head;
  const kept = (budget: number): string => {
    const first = Math.floor(budget / 4);
    return shownVerifierText(cutText(head, first)) + MIDDLE_LEFT_OUT + shownVerifierText(cutTextEnd(from, budget - first)) + end;
  };
  // A kept piece may gain a note more (its cut line): then the budget shrinks by that much.
  let budget = Math.max(0, VERIFIER_OUTPUT_CHARS - MIDDLE_LEFT_OUT.length - end.length);
  for (;;) {
    const out = kept(budget);
    if (out.length <= VERIFIER_OUTPUT_CHARS || budget === 0) return out;
    budget = Math.max(0, budget - (out.length - VERIFIER_OUTPUT_CHARS));
  }
}
