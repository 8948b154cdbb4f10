import { wellFormed } from '@cordon/plugin-api';
import type { AuditRecord } from '../audit/record.js';
import { terminalLines } from '../../output/terminal.js';
import { pathBytes } from '../path-text.js';
import { auditedAgainst, outputTail } from '../render.js';
import { pairFailedVerifiers } from './shared.js';

/** The schema URI a SARIF 2.1.0 log names (OASIS SARIF 2.1.0, §3.13.3, as the SchemaStore copy). */
export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

/** Options of {@link renderSarif}. */
export interface SarifOptions {
  /** cordon's version, for `tool.driver.version`. */
  readonly toolVersion?: string;
}

/**
 * Human text of the violation codes the host makes, for an audit against `rules` (the armed
 * `envelope`, or the `policy` of a committed range: render.ts `auditedAgainst`); others
 * (plugins') get a generic one.
 */
function ruleText(code: string, rules: 'envelope' | 'policy'): string {
  switch (code) {
    case 'path_outside_policy':
      return 'A changed path is outside the allowed globs or inside a denied one';
    case 'max_files_exceeded':
      return `More files changed than the ${rules} allows`;
    case 'max_added_lines_exceeded':
      return `More lines added than the ${rules} allows`;
    case 'max_deleted_lines_exceeded':
      return `More lines deleted than the ${rules} allows`;
    case 'max_working_bytes_exceeded':
      return `The changed files are larger than the ${rules} allows`;
    case 'max_binary_files_exceeded':
      return `More binary files changed than the ${rules} allows`;
    case 'verifier_failed':
      return 'A verifier command failed';
    case 'head_changed':
      return 'HEAD moved although commits are not allowed';
    case 'attributes_changed':
      // As the violation's own message says it (audit/run-audit.ts).
      return rules === 'envelope' ? '.gitattributes changed inside the envelope' : '.gitattributes changed in the audited commits';
    case 'submodule_changed':
      return 'A submodule work tree changed';
    case 'unsupported_file_type':
      return 'A changed path has a file type cordon cannot audit';
    case 'index_flag_hidden':
      return 'An index flag hides a change from git';
    default:
      return `${rules === 'envelope' ? 'Envelope' : 'Policy'} violation ${code}`;
  }
}

/**
 * A repository path as a relative URI reference (RFC 3986), for `artifactLocation.uri`: the
 * path's original bytes (see path-text.ts, so non-UTF-8 names survive) with every byte outside
 * the unreserved set and `/` percent-encoded.
 */
export function pathUri(path: string): string {
  let out = '';
  for (const b of pathBytes(path)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~/]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * `cordon check --format sarif`: a SARIF 2.1.0 log with one run of the tool
 * `cordon`. Each violation is a result of level `error` whose rule is its code (listed under
 * `tool.driver.rules`); a violation about a path has one location, relative to `%SRCROOT%`
 * (the repository root); budget and verifier violations have none. A failed verifier's
 * result message carries the end of its output. The verdict, metrics and limits are the run's
 * `properties`; `invocations[0].exitCode` is the exit code `check` returns (0 or 3).
 */
export function renderSarif(audit: AuditRecord, options: SarifOptions = {}): object {
  const pairs = pairFailedVerifiers(audit);
  const ruleIds = [...new Set(pairs.map((p) => p.violation.code))];
  const against = auditedAgainst(audit);
  const rules = ruleIds.map((id) => ({
    id,
    shortDescription: { text: ruleText(id, against) },
    defaultConfiguration: { level: 'error' },
  }));
  const results = pairs.map(({ violation, verifier }) => {
    // Controls and bidi characters as `\uXXXX`, as the text and github forms show them.
    const text = terminalLines(wellFormed([violation.message, ...(verifier ? outputTail(verifier) : [])].join('\n')));
    const result: Record<string, unknown> = {
      ruleId: violation.code,
      ruleIndex: ruleIds.indexOf(violation.code),
      level: 'error',
      message: { text },
    };
    if (violation.path !== undefined) {
      result.locations = [{ physicalLocation: { artifactLocation: { uri: pathUri(violation.path), uriBaseId: '%SRCROOT%' } } }];
    }
    const props: Record<string, unknown> = {};
    if (violation.limit !== undefined) props.limit = violation.limit;
    if (violation.actual !== undefined) props.actual = violation.actual;
    if (violation.source) props.source = violation.source;
    if (verifier) Object.assign(props, { command: verifier.command, returncode: verifier.returncode, signal: verifier.signal, timed_out: verifier.timed_out });
    if (Object.keys(props).length > 0) result.properties = props;
    return result;
  });
  const driver: Record<string, unknown> = { name: 'cordon', informationUri: 'https://www.npmjs.com/package/@cordon/host', rules };
  if (options.toolVersion) driver.version = options.toolVersion;
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: { driver },
        invocations: [{ executionSuccessful: true, exitCode: audit.passed ? 0 : 3 }],
        results,
        properties: {
          passed: audit.passed,
          mode: audit.mode,
          baseline: audit.baseline,
          current_head: audit.current_head,
          metrics: audit.metrics,
          limits: audit.limits,
          verifiers: audit.verification.map((v) => ({ command: v.command, passed: v.passed, duration_ms: v.duration_ms })),
        },
      },
    ],
  };
}
