import { plural } from '../util/plural.js';
import type { AuditRecord } from './audit/record.js';
import type { StatusReport } from './status.js';
import type { VerifierResult } from './verify/run.js';
import { shownVerifierText, streamEvidence } from './verify/evidence.js';
import { cutText, cutTextEnd } from '@cordon/plugin-api';
import { terminalLines, terminalText } from '../output/terminal.js';
import { displayPath } from './path-text.js';
import { renamesByPath, statusOfLetter, type ShownRename } from './audit/file-status.js';
import { byteSize } from '../output/byte-size.js';

/**
 * Where an accepted change stayed, in the verdict's words: `inside the envelope` armed in the
 * work tree, `within the policy` for a committed range audited without one (`check --base`,
 * whose policy comes from the base commit's `.cordon.json` or the flags).
 */
export function acceptedWhere(audit: Pick<AuditRecord, 'mode'>): string {
  return audit.mode === 'envelope' ? 'inside the envelope' : 'within the policy';
}

/**
 * What set the rules an audit applied, in the same words as {@link acceptedWhere}: `envelope`
 * armed in the work tree, `policy` for a committed range; for the reports CI reads (SARIF rule
 * texts, JUnit failure messages), so that they say what the text verdict says.
 */
export function auditedAgainst(audit: Pick<AuditRecord, 'mode'>): 'envelope' | 'policy' {
  return audit.mode === 'envelope' ? 'envelope' : 'policy';
}

/**
 * Human output of `cordon check`: a one-line verdict, the metrics against their
 * limits, the changed files ({@link changedFilesSection}), then one line per violation; a failed verifier's line is followed by the end of its
 * output, indented (see {@link outputTail}). Paths in violation messages are already display-safe;
 * the verifier's output and plugins' messages are escaped for the terminal ({@link terminalLines}).
 */
export function renderAudit(audit: AuditRecord): string {
  const { metrics: m, limits: l } = audit;
  const verdict = audit.passed
    ? `accepted: ${plural(m.files, 'changed file')} ${acceptedWhere(audit)} (baseline ${audit.baseline.slice(0, 12)})`
    : `rejected: ${plural(audit.violations.length, 'violation')} (baseline ${audit.baseline.slice(0, 12)})`;
  // Sizes as people read them (`13 B / 2 MiB`); the counts as they are. --json keeps the numbers.
  const rows: Array<[string, number, number, (n: number) => string]> = [
    ['files', m.files, l.max_files, String],
    ['added lines', m.added_lines, l.max_added_lines, String],
    ['deleted lines', m.deleted_lines, l.max_deleted_lines, String],
    ['working bytes', m.working_bytes, l.max_working_bytes, byteSize],
    ['binary files', m.binary_files, l.max_binary_files, String],
  ];
  const width = Math.max(...rows.map(([, v, , show]) => show(v).length));
  const lines = [verdict, ...rows.map(([name, value, limit, show]) => `  ${name.padEnd(15)}${show(value).padStart(width)} / ${show(limit)}${value > limit ? '  over' : ''}`)];
  const passed = audit.verification.filter((v) => v.passed).length;
  if (audit.verification.length > 0) lines.push(`  ${'verifiers'.padEnd(15)}${passed} of ${audit.verification.length} passed`);
  else if (audit.verification_skipped) lines.push(`  ${'verifiers'.padEnd(15)}not run (the policy audit failed)`);
  // Both verdicts name what changed: a rejected one (a file budget passed, say) is where it is needed most.
  lines.push(...changedFilesSection(audit));
  // `verifier_failed` violations are made in the order of the failed results (audit/run-audit.ts).
  const failed = audit.verification.filter((v) => !v.passed);
  for (const v of audit.violations) {
    // One line each: a line break in a message (a verifier command holding one) would start a
    // line of the verdict the message's author chose (`::error::…` for a CI log).
    lines.push(`violation: ${terminalText(v.message)}`);
    if (v.code === 'verifier_failed') {
      const result = failed.shift();
      if (result) lines.push(...indentedOutput(outputTail(result)));
    }
  }
  for (const note of audit.notes ?? []) lines.push(`note: ${terminalText(note)}`);
  return terminalLines(lines.join('\n'));
}

/** Changed files a verdict names at most (a rename is one). */
export const SHOWN_CHANGED_FILES = 20;

/**
 * The changed files of a verdict, accepted or rejected, under `changed files:`: one per line, indented, with
 * how each changed (`(added)`, `(deleted)`, `(modified)`; a record of an older cordon has no
 * status, so none is shown), a rename as `old -> new (renamed)` on one line at the place of
 * whichever of its paths sorts first; at most {@link SHOWN_CHANGED_FILES}, then how many more.
 * Paths are escaped by `displayPath` (the rest of the verdict by the caller's terminalLines).
 */
export function changedFilesSection(audit: Pick<AuditRecord, 'changed_files' | 'changed_file_status' | 'shown_renames'>): string[] {
  const files = audit.changed_files;
  if (files.length === 0) return [];
  const renameOf = renamesByPath(audit.shown_renames);
  const status = audit.changed_file_status?.length === files.length ? audit.changed_file_status : undefined;
  // Every entry is counted, only the shown ones are formatted: on the 20,000-file bench (1,250
  // changes) formatting all of them made printing the verdict take 2.7 ms instead of 1.2.
  const shown: string[] = [];
  let entries = 0;
  const shownRenames = new Set<ShownRename>();
  for (let i = 0; i < files.length; i++) {
    const rename = renameOf.get(files[i]!);
    if (rename) {
      if (shownRenames.has(rename)) continue;
      shownRenames.add(rename);
    }
    if (++entries > SHOWN_CHANGED_FILES) continue;
    if (rename) shown.push(`  ${displayPath(rename.from)} -> ${displayPath(rename.to)} (renamed)`);
    else shown.push(`  ${status ? `${displayPath(files[i]!)} (${statusOfLetter(status[i]!).replace('-', ' ')})` : displayPath(files[i]!)}`);
  }
  if (entries > SHOWN_CHANGED_FILES) shown.push(`  \u2026 and ${entries - SHOWN_CHANGED_FILES} more (\`cordon check --json\` lists every changed file)`);
  return ['changed files:', ...shown];
}

/** Lines of a failed verifier's output shown under its violation (the evidence keeps the first and last 8 KiB of a stream). */
export const TAIL_LINES = 20;
/** Characters of that output shown at most. */
export const TAIL_CHARS = 2000;

/**
 * The end of what a failed verifier printed: the last {@link TAIL_LINES} lines, at most
 * {@link TAIL_CHARS} characters, of its stderr or its stdout, whichever holds text; when both do,
 * the last half of that of each, stdout first, each under a header naming it (a test runner's
 * summary is often on stdout while stderr holds warnings or npm's own failure lines), else why it
 * could not start. The evidence of a longer stream holds its first and last 8 KiB, so these
 * lines are its real end (the summary a test runner prints last); the header says how much was
 * left out. Records written by an older cordon hold only the first 16 KiB, and say so. When
 * those lines start inside a stack trace, the line naming the error above the trace is kept in
 * front of them, then `… (N lines left out)` ({@link errorLineAbove}): a long trace would
 * otherwise push out the one line that says what failed.
 *
 * The headers are cordon's, drawn from the record's data (verify/evidence.ts `streamEvidence`);
 * the verifier's lines go through `shownVerifierText`, so a line of its own shaped like a header
 * or a marker shows as the verifier's (`(the verifier printed:) (stdout:)`), not as cordon's. The
 * character limit counts the lines before that note is put in front of any.
 */
export function outputTail(result: VerifierResult): string[] {
  if (result.start_error) return [result.start_error];
  const streams = (['stdout', 'stderr'] as const).filter((which) => result[which].trim() !== '');
  const tail = streams.length === 2 ? [...streamTail(result, 'stdout', TAIL_LINES / 2, TAIL_CHARS / 2, true), ...streamTail(result, 'stderr', TAIL_LINES / 2, TAIL_CHARS / 2, true)] : streams.length === 1 ? streamTail(result, streams[0]!, TAIL_LINES, TAIL_CHARS, false) : [];
  // Every format that shows the tail (the text verdict, GitHub annotations, SARIF, JUnit) shows
  // no line ending in whitespace nobody can see; the record and --json keep what was printed.
  return tail.map((line) => line.trimEnd());
}

/**
 * The last `maxLines` lines (at most `maxChars` characters) of one stream's evidence, under a
 * header when something was left out, or always when `named` (two streams are shown).
 */
function streamTail(result: VerifierResult, which: 'stdout' | 'stderr', maxLines: number, maxChars: number, named: boolean): string[] {
  const evidence = streamEvidence(result, which);
  const whole = (evidence.kind === 'whole' ? evidence.text : evidence.kind === 'middle' ? evidence.tail : evidence.head).replace(/\s+$/, '');
  if (whole === '') return [];
  const all = whole.split(/\r?\n/);
  let start = Math.max(0, all.length - maxLines);
  // A tail that starts inside a stack trace keeps the line naming the error above it.
  const errorAt = start > 0 ? errorLineAbove(all, start) : undefined;
  let errorLine: string | undefined;
  if (errorAt !== undefined) {
    // Two of the tail's lines make room for the error line and the note saying what was left out.
    start = Math.min(all.length - 1, start + 2);
    errorLine = cutText(all[errorAt]!, Math.floor(maxChars / 4));
    maxChars -= errorLine.length;
  }
  let dropped = start > 0;
  let text = all.slice(start).join('\n');
  if (text.length > maxChars) {
    // Keep whole lines where possible; a single huge line keeps its end.
    const end = cutTextEnd(text, maxChars);
    const nl = end.indexOf('\n');
    text = nl >= 0 && nl < end.length - 1 ? end.slice(nl + 1) : end;
    dropped = true;
  }
  const lead: string[] = [];
  if (errorLine !== undefined) {
    // Counted once the character limit has had its say: the lines between the error line and the first shown.
    const skipped = all.length - text.split('\n').length - errorAt! - 1;
    lead.push(...shownVerifierText(errorLine).split('\n'), ...(skipped > 0 ? [`\u2026 (${plural(skipped, 'line')} left out)`] : []));
  }
  const out = [...lead, ...shownVerifierText(text).split('\n')];
  if (evidence.kind === 'end') out.unshift(`(${which} cut at 16 KiB; the end of what was kept:)`);
  else if (evidence.kind === 'middle') out.unshift(`(${which} longer than 16 KiB, ${evidence.leftOutBytes} bytes of its middle left out; its last lines:)`);
  else if (dropped) out.unshift(`(last lines of ${which}:)`);
  else if (named) out.unshift(`(${which}:)`);
  return out;
}

/**
 * A line of a stack trace: indented (`    at f (a.js:1:2)` of Node and Java, `  File "a.py",
 * line 3` and its source line of Python, Go's `\t/src/a.go:12 +0x1d`, Rust's `   3: main`), or
 * Ruby's `from a.rb:3:in 'f'`. The line naming the error is not indented in any of them.
 */
const TRACE_LINE = /^(\s+\S|from \S+:\d+)/;
/** A line naming an error: `TypeError: …`, `error: …`, `panic: …`, a test runner's `FAIL`. */
const ERROR_LINE = /Error|error:|Exception|FAIL|panic/;

/**
 * The index of the line naming the error whose stack trace `lines[start]` is in: when
 * `lines[start]` is a trace line, the nearest line above the trace's run of trace lines, if it
 * names an error ({@link ERROR_LINE}); else undefined. Generic on purpose: a trace whose message
 * comes after it (Python's) is already in the tail.
 */
export function errorLineAbove(lines: readonly string[], start: number): number | undefined {
  if (!TRACE_LINE.test(lines[start] ?? '')) return undefined;
  let i = start - 1;
  while (i >= 0 && (TRACE_LINE.test(lines[i]!) || lines[i]!.trim() === '')) i -= 1;
  return i >= 0 && ERROR_LINE.test(lines[i]!) ? i : undefined;
}

/**
 * The first line of a label, for one line of `cordon status`; a label of several lines says how
 * many were left out and where the whole label is (`fix the parser (+2 more lines; cordon status
 * --json has all of it)`).
 */
export function labelLine(label: string): string {
  const lines = label.split(/\r\n|\n|\r/);
  if (lines.length === 1) return label;
  return `${lines[0]} (+${plural(lines.length - 1, 'more line')}; cordon status --json has all of it)`;
}

/**
 * The lines showing the end of an agent's stderr after an engine error (`agent stderr, last lines
 * of attempt 1:` and each line indented), or none; escaped by the caller's {@link terminalLines}.
 */
export function agentStderrSection(lines: readonly string[], which: string): string[] {
  if (lines.length === 0) return [];
  return [`agent stderr, last lines of ${which}:`, ...indentedOutput(lines)];
}

/**
 * Lines a program printed (a verifier's tail, an agent's stderr), as a verdict shows them under
 * their heading: indented by four spaces, each line's trailing whitespace dropped and a blank line
 * left empty, so none ends in spaces nobody can see (`  $` under `cat -A`). Text output only: the
 * record and `--json` keep what the program printed.
 */
export function indentedOutput(lines: readonly string[]): string[] {
  return lines.map((line) => line.trimEnd()).map((line) => (line === '' ? line : `    ${line}`));
}

/** Human output of `cordon status`. */
export function renderStatus(s: StatusReport): string {
  const lines = [
    // A manual envelope never starts an agent attempt: `cordon check` judges what the user made.
    s.mode === 'manual'
      ? `phase: ${s.phase} (mode manual: \`cordon check\` judges the change)`
      : `phase: ${s.phase} (attempt ${s.attempt} of ${s.max_attempts}, mode ${s.mode})`,
    `label: ${labelLine(s.label)}`,
    `baseline: ${s.baseline}`,
    `allow: ${s.allow.join(' ')}${s.deny.length ? `; deny: ${s.deny.join(' ')}` : ''}${s.allow_ignored.length ? `; allow ignored: ${s.allow_ignored.join(' ')}` : ''}`,
    `limits: files ${s.limits.max_files}, added lines ${s.limits.max_added_lines}, deleted lines ${s.limits.max_deleted_lines}, working bytes ${byteSize(s.limits.max_working_bytes)}, binary files ${s.limits.max_binary_files}${s.allow_commits ? ', commits allowed' : ''}`,
  ];
  // One verifier per line: joined on one line, a separator could not be told from the commands'
  // own characters (`echo a | grep a | exit 1` was two verifiers).
  // Each on one line, its own line breaks shown as `\u000a`.
  if (s.verify.length === 1) lines.push(`verify: ${terminalText(s.verify[0]!)}`);
  else if (s.verify.length > 1) lines.push(`verify (${s.verify.length}, run in order):`, ...s.verify.map((command) => `  ${terminalText(command)}`));
  lines.push(s.live ? 'live: on (an agent whose hooks are installed and can refuse a write is refused one outside the policy before it happens; `cordon doctor` says which agents have their hooks installed, `cordon install-hooks` installs them)' : 'live: off (writes are judged by `cordon check` only; `cordon arm --live` turns it on)');
  if (s.last_audit) lines.push(`last audit: ${s.last_audit.passed ? 'passed' : 'failed'}, ${plural(s.last_audit.violations.length, 'violation')}`);
  if (s.last_error) lines.push(`last error: ${s.last_error}`);
  lines.push(...agentStderrSection(s.last_agent_stderr, `attempt ${s.attempt}`));
  if (s.stale_run && s.live_agent_pid !== null) lines.push(`agent still running: ${s.stale_run}`);
  else if (s.stale_run) lines.push(`stale: ${s.stale_run}; \`cordon resume\` starts a new attempt, \`cordon check\` audits what is there`);
  if (s.operation) lines.push(`in progress: ${s.operation}`);
  return terminalLines(lines.join('\n'));
}

