import { wellFormed } from '@cordon/plugin-api';
import type { AuditRecord } from '../audit/record.js';
import { pairFailedVerifiers } from './shared.js';
import { acceptedWhere, outputTail } from '../render.js';
import { plural } from '../../util/plural.js';
import { terminalLines, terminalText } from '../../output/terminal.js';

/**
 * The `file=` of a violation's annotation: the path as it is when a terminal shows it as itself,
 * else none. A path an agent wrote may hold ESC or other controls (`esc\x1b[2Jclear.md`), which
 * a property cannot carry escaped (the runner decodes only `%25`, `%0D`, `%0A`, `%3A`, `%2C`)
 * and which the raw log line would hand to whatever shows it; the annotation then names the
 * path only in its message, escaped there as in every other output.
 */
function annotationFile(path: string | undefined): string | undefined {
  return path === undefined || terminalText(path) !== path ? undefined : path;
}

/**
 * Escapes the data (message) part of a GitHub Actions workflow command: `%`, CR and LF become
 * `%25`, `%0D`, `%0A` (GitHub's documented syntax, "Workflow commands for GitHub Actions";
 * the runner's `ActionCommand` unescapes exactly these). `%` goes first so an escape is not
 * escaped again. Lone surrogates become U+FFFD so the line is valid UTF-8. Any other text
 * round-trips through the runner's unescaping, controls included: no input can end
 * the line or start another command, and the runner shows annotations as text.
 */
export function escapeData(text: string): string {
  return wellFormed(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * Escapes a property value (`file=`, `title=`) of a workflow command: as {@link escapeData},
 * plus `:` → `%3A` and `,` → `%2C`, which would otherwise end the value.
 */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * One workflow command line: `::name key=value,…::data` with every value and the data escaped
 * ({@link escapeProperty}, {@link escapeData}), so no input can end the line or start another
 * command. Properties whose value is undefined are left out.
 */
export function workflowCommand(name: string, properties: Record<string, string | undefined>, data: string): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(data)}`;
}

/**
 * A refused `cordon check --format github` as the workflow sees it: one `::error` titled
 * `cordon: refused (<code>)` whose message is the refusal's, escaped as every workflow command
 * ({@link workflowCommand}), so a refusal shows as an annotation and not only as a log line.
 */
export function refusalAnnotation(error: { readonly code: string; readonly message: string }): string {
  return workflowCommand('error', { title: `cordon: refused (${error.code})` }, error.message);
}

/**
 * `cordon check --format github`: GitHub Actions workflow commands only, so that
 * nothing a verifier printed can be read by the runner as a command of its own. One `::error`
 * per violation, titled `cordon: <code>`, with `file=` when the violation is about a path a
 * terminal shows as itself ({@link annotationFile}); a
 * failed verifier's message carries the end of its output ({@link outputTail}), its controls
 * escaped as for a terminal. Last, a
 * `::notice` (accepted) or `::error` (rejected) with the verdict and the metrics.
 */
export function renderGithub(audit: AuditRecord): string {
  const lines: string[] = [];
  for (const { violation, verifier } of pairFailedVerifiers(audit)) {
    const tail = verifier ? outputTail(verifier) : [];
    // A verifier's output may hold controls (colours, OSC 52 clipboard writes, BEL): shown as
    // `\uXXXX` as in the text verdict, since the log line reaches whatever shows the raw log.
    const message = terminalLines([violation.message, ...tail].join('\n'));
    lines.push(workflowCommand('error', { file: annotationFile(violation.path), title: `cordon: ${violation.code}` }, message));
  }
  const m = audit.metrics;
  const summary = `${plural(m.files, 'file')}, +${m.added_lines} -${m.deleted_lines} lines, ${m.binary_files} binary; baseline ${audit.baseline.slice(0, 12)}`;
  if (audit.passed) lines.push(workflowCommand('notice', { title: 'cordon: accepted' }, `${acceptedWhere(audit)}: ${summary}`));
  else lines.push(workflowCommand('error', { title: 'cordon: rejected' }, `${plural(audit.violations.length, 'violation')}: ${summary}`));
  return lines.join('\n');
}
