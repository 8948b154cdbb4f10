import { wellFormed } from '@cordon/plugin-api';
import { terminalLines } from '../../output/terminal.js';
import type { AuditRecord } from '../audit/record.js';
import { failureReason } from '../verify/run.js';
import { auditedAgainst, outputTail } from '../render.js';

/**
 * Text as XML 1.0 character data or attribute value: `&`, `<`, `>`, `"`, `'` become entities;
 * control and bidirectional characters but tab and line feed become their `\uXXXX` escapes, as
 * in every other output form ({@link terminalLines}: a CI system shows the report's text, and a
 * terminal may too); what XML 1.0 still cannot hold (lone surrogates, U+FFFE, U+FFFF) becomes
 * U+FFFD, so the document always parses (XML 1.0 §2.2 `Char`).
 */
export function xmlText(text: string): string {
  return terminalLines(wellFormed(text))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // CR and tab in attributes would be normalised away by a parser; as references they survive.
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * `cordon check --format junit`: a JUnit XML report (the Ant/Surefire shape CI
 * systems read) with one suite `cordon verifiers`, one `testcase` per verifier that ran (name =
 * the command, time in seconds) and, for a failed one, a `failure` whose message is the reason
 * (`exit 1`, `timeout`, …) and whose text is the end of its output ({@link outputTail}). When
 * the verifiers were skipped (the policy audit failed first) the suite has one skipped case.
 * A second suite `cordon envelope` has one case `policy`, failed with every violation that
 * is not a verifier's, so a rejected envelope shows as a failed test even without verifiers; its
 * message counts `envelope violations`, or for a committed range `policy violations`, as the text
 * verdict words the two (render.ts `auditedAgainst`). Suite, class and type names stay the same
 * in both, so that a CI system's history of the case does not split.
 */
export function renderJunit(audit: AuditRecord): string {
  const cases: string[] = [];
  let failures = 0;
  for (const v of audit.verification) {
    const open = `    <testcase classname="cordon.verify" name="${xmlText(v.command)}" time="${seconds(v.duration_ms)}"`;
    if (v.passed) {
      cases.push(`${open}/>`);
      continue;
    }
    failures++;
    const reason = recordedReason(audit, v.command) ?? failureReason(v);
    cases.push(`${open}>\n      <failure message="${xmlText(`verifier failed (${reason})`)}" type="${xmlText(reason)}">${xmlText(outputTail(v).join('\n'))}</failure>\n    </testcase>`);
  }
  let skipped = 0;
  if (audit.verification.length === 0 && audit.verification_skipped) {
    skipped = 1;
    cases.push('    <testcase classname="cordon.verify" name="verifiers" time="0.000">\n      <skipped message="not run: the policy audit failed"/>\n    </testcase>');
  }
  const totalMs = audit.verification.reduce((sum, v) => sum + v.duration_ms, 0);
  const policy = audit.violations.filter((v) => v.code !== 'verifier_failed');
  const policyCase = policy.length
    ? `    <testcase classname="cordon.envelope" name="policy" time="0.000">\n      <failure message="${xmlText(`${policy.length} ${auditedAgainst(audit)} violation${policy.length === 1 ? '' : 's'}`)}" type="envelope">${xmlText(policy.map((v) => `${v.code}: ${v.message}`).join('\n'))}</failure>\n    </testcase>`
    : '    <testcase classname="cordon.envelope" name="policy" time="0.000"/>';
  const verifyTests = cases.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cordon check" tests="${verifyTests + 1}" failures="${failures + (policy.length ? 1 : 0)}" errors="0" skipped="${skipped}" time="${seconds(totalMs)}">`,
    `  <testsuite name="cordon verifiers" tests="${verifyTests}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(totalMs)}">`,
    ...cases,
    '  </testsuite>',
    `  <testsuite name="cordon envelope" tests="1" failures="${policy.length ? 1 : 0}" errors="0" skipped="0" time="0.000">`,
    policyCase,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The reason the audit's own `verifier_failed` violation gave for `command` (`timeout after 600
 * s`, `output limit of 1048576 bytes`: the audit knew the limits, which the record does not
 * keep), or undefined when there is none.
 */
function recordedReason(audit: AuditRecord, command: string): string | undefined {
  const head = 'verifier failed (';
  const tail = `): ${command}`;
  const found = audit.violations.find((v) => v.code === 'verifier_failed' && v.message.startsWith(head) && v.message.endsWith(tail) && v.message.length > head.length + tail.length);
  return found?.message.slice(head.length, found.message.length - tail.length);
}
