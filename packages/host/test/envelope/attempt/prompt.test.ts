import type { AttemptBrief } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../src/envelope/audit/record.js';
import { recoveryFor, renderBrief, RECOVERY_PATHS } from '../../../src/envelope/attempt/prompt.js';
import type { VerifierResult } from '../../../src/envelope/verify/run.js';

const brief: AttemptBrief = {
  task: 'Make src/app.py print bye',
  allow: ['src/**', 'test/*.py'],
  deny: ['src/secrets/**'],
  limits: { max_files: 3, max_added_lines: 4, max_deleted_lines: 5, max_working_bytes: 6, max_binary_files: 7 },
  allowCommits: false,
  verifiers: ['npm test', 'python -m pytest -q'],
  attempt: 1,
  maxAttempts: 3,
};

describe('the attempt prompt (the BEKO2210/SkillQuarry cordon, our wording)', () => {
  it('states everything, in order, exactly', () => {
    expect(renderBrief(brief)).toBe(
      [
        'You are working inside a cordon change envelope: an audit of this Git repository that runs after you finish.',
        '',
        'Task:',
        'Make src/app.py print bye',
        '',
        'Envelope rules:',
        '- Change only paths matching: src/**, test/*.py',
        '- Never change paths matching: src/secrets/**',
        '- Budgets, inclusive: changed files <= 3; added lines <= 4; deleted lines <= 5; working bytes <= 6 (the summed size of every changed file); binary files <= 7.',
        '- Do not commit. Leave every change in the working tree; a moved HEAD is a violation.',
        '- Do not reset, clean, stash or check out over work, do not change Git configuration, ignore or attribute files, and do not touch .cordon/.',
        '- When you stop, cordon inspects the working tree itself and runs these verifiers: `npm test`, `python -m pytest -q`. Saying the task is done proves nothing; only the audit decides.',
        '',
        'Attempt: 1 of 3',
        '',
      ].join('\n'),
    );
  });

  it('the commit rule follows --allow-commits (defect C10); no deny globs and no verifiers are said so', () => {
    const text = renderBrief({ ...brief, allowCommits: true, deny: [], verifiers: [] });
    expect(text).toContain('- Commits are allowed; committed changes are audited exactly like uncommitted ones.');
    expect(text).not.toContain('Do not commit');
    expect(text).toContain('- Never change paths matching: (none)');
    expect(text).toContain('- When you stop, cordon inspects the working tree itself. Saying the task is done proves nothing');
  });

  it('a multi-line task is kept verbatim', () => {
    expect(renderBrief({ ...brief, task: 'line one\n  line two' })).toContain('Task:\nline one\n  line two\n\nEnvelope rules:');
  });

  it('a resume adds the recovery context: previous error, changed paths, failed verifiers with their output', () => {
    const text = renderBrief({
      ...brief,
      attempt: 2,
      recovery: {
        previousAttempt: 1,
        previousError: 'verifier failed (exit 1): npm test',
        changedPaths: ['src/app.py', 'src/new.py'],
        changedCount: 2,
        failedVerifiers: [{ command: 'npm test', outcome: 'exit 1', output: 'expected bye\ngot hello\n' }],
      },
    });
    expect(text.endsWith(
      [
        'Attempt: 2 of 3',
        '',
        'Recovery context: attempt 1 did not end accepted, and its changes are still in the working tree.',
        'Previous attempt ended with: verifier failed (exit 1): npm test',
        'Paths changed so far (2):',
        '- src/app.py',
        '- src/new.py',
        'Failed verifiers:',
        '- `npm test` (exit 1):',
        '    expected bye',
        '    got hello',
        '',
      ].join('\n'),
    )).toBe(true);
  });

  it('recovery with nothing changed and no recorded error', () => {
    const text = renderBrief({ ...brief, attempt: 2, recovery: { previousAttempt: 1, previousError: null, changedPaths: [], changedCount: 0, failedVerifiers: [] } });
    expect(text).toContain('Previous attempt ended with: (no error was recorded)\nPaths changed so far: none\n');
    expect(text).not.toContain('Failed verifiers');
  });
});

describe('recoveryFor', () => {
  const verifier = (over: Partial<VerifierResult>): VerifierResult => ({
    command: 'v', argv: ['v'], passed: false, returncode: 1, signal: null, timed_out: false, output_limited: false, output_not_closed: false, start_error: null, stdout: '', stderr: '', duration_ms: 1, ...over,
  });
  const audit = (over: Partial<AuditRecord>): AuditRecord => ({
    passed: false, mode: 'envelope', baseline: 'a'.repeat(40), current_head: 'a'.repeat(40), head_changed: false, changed_files: [], metrics: { files: 0, added_lines: 0, deleted_lines: 0, working_bytes: 0, binary_files: 0 },
    limits: { max_files: 1, max_added_lines: 1, max_deleted_lines: 1, max_working_bytes: 1, max_binary_files: 1 }, violations: [], ignored_changes: [], verification: [], verification_skipped: false, ...over,
  });

  it('paths come from the current audit, capped with a count; verifiers from the last full audit', () => {
    const paths = Array.from({ length: RECOVERY_PATHS + 7 }, (_, i) => `src/f${String(i).padStart(3, '0')}.py`);
    const r = recoveryFor(1, 'boom', audit({ changed_files: paths }), audit({
      verification: [
        verifier({ command: 'a', passed: true, returncode: 0 }),
        verifier({ command: 'b', stderr: 'E'.repeat(5000), stdout: 'ignored' }),
        verifier({ command: 'c', stdout: 'only stdout' }),
        verifier({ command: 'd', timed_out: true, returncode: null, signal: 'SIGKILL' }),
        verifier({ command: 'e', returncode: null, start_error: "cannot start 'e': ENOENT" }),
      ],
    }));
    expect(r.changedPaths).toHaveLength(RECOVERY_PATHS);
    expect(r.changedCount).toBe(RECOVERY_PATHS + 7);
    expect(r.failedVerifiers.map((v) => [v.command, v.outcome])).toEqual([['b', 'exit 1'], ['c', 'exit 1'], ['d', 'timeout'], ['e', 'cannot start']]);
    // The start and the end are kept, the middle left out, within the 2,000 characters.
    expect(r.failedVerifiers[0]!.output).toBe(`${'E'.repeat(493)}\n...[middle left out]...\n${'E'.repeat(1482)}`);
    expect(r.failedVerifiers[1]!.output).toBe('only stdout');
    expect(r.failedVerifiers[3]!.output).toBe("cannot start 'e': ENOENT");
    const text = renderBrief({ ...brief, attempt: 2, recovery: r });
    expect(text).toContain(`- (+7 more)`);
  });

  it('no previous full audit: no failed verifiers', () => {
    expect(recoveryFor(2, null, audit({}), null).failedVerifiers).toEqual([]);
  });
});
