import type { AuditRecord } from '../audit/record.js';
import { renderAudit } from '../render.js';
import { renderGithub } from './github.js';
import { renderJunit } from './junit.js';
import { renderSarif } from './sarif.js';
import { shownJson } from '../../output/json-text.js';

/** The `--format` values of `cordon check`. */
export const CHECK_FORMATS = ['text', 'github', 'sarif', 'junit'] as const;
/** One of {@link CHECK_FORMATS}. */
export type CheckFormat = (typeof CHECK_FORMATS)[number];

/**
 * The audit in `format`, as the text to write (ending without a newline for `text` and
 * `github`, whose lines go through `log`; SARIF is pretty JSON with a final newline, written
 * as every JSON output is ({@link shownJson}): the command and paths an agent wrote keep no raw
 * C1 control, bidirectional override or `##[` a CI log would act on, and parse back the same).
 */
export function renderCheckFormat(audit: AuditRecord, format: CheckFormat, options: { readonly toolVersion?: string } = {}): string {
  switch (format) {
    case 'github':
      return renderGithub(audit);
    case 'sarif':
      return `${shownJson(renderSarif(audit, options), 2)}\n`;
    case 'junit':
      return renderJunit(audit);
    default:
      return renderAudit(audit);
  }
}

export { escapeData, escapeProperty, refusalAnnotation, renderGithub, workflowCommand } from './github.js';
export { pathUri, renderSarif, SARIF_SCHEMA_URI } from './sarif.js';
export { renderJunit, xmlText } from './junit.js';
