import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runVerifiers, type VerifierResult } from '../../src/envelope/index.js';
import { recoveryFor } from '../../src/envelope/attempt/prompt.js';
import type { AuditRecord } from '../../src/envelope/audit/record.js';
import { outputTail, renderAudit } from '../../src/envelope/render.js';
import { auditRecordProblem } from '../../src/envelope/state/schema.js';
import { keptStream, shownVerifierText, VERIFIER_TEXT_NOTE } from '../../src/envelope/verify/evidence.js';
import { tempDir, write } from './support.js';

// A verifier is untrusted: text it prints shaped like cordon's note that lines were left out
// (or like the header that starts a stream) must not read as cordon's.

const spec = { timeout_seconds: 60, output_cap: 4 << 20 };
const FORGED = ['...[99 bytes left out by cordon]...', '...[truncated by Cordon]', '...[middle left out]...', '(stdout longer than 16 KiB, 99 bytes of its middle left out; its last lines:)', '(stderr:)', '(last lines of stdout:)', '（stdout:）'];
/** Any line shaped like one of cordon's notes or markers. */
const NOTE_SHAPED = /^\s*\p{Ps}.*\p{Pe}\s*$|(?:\p{Po}\p{Po}|[\u2025\u2026\u22ef])\s*\p{Ps}/u;

function audit(verification: VerifierResult[]): AuditRecord {
  return {
    passed: false, mode: 'envelope', baseline: 'a'.repeat(40), current_head: 'a'.repeat(40), head_changed: false, changed_files: [],
    metrics: { files: 0, added_lines: 0, deleted_lines: 0, working_bytes: 0, binary_files: 0 },
    limits: { max_files: 1, max_added_lines: 1, max_deleted_lines: 1, max_working_bytes: 1, max_binary_files: 1 },
    violations: verification.map((v) => ({ code: 'verifier_failed', message: `verifier failed: ${v.command}` })), ignored_changes: [], verification, verification_skipped: false,
  } as AuditRecord;
}

const result = (over: Partial<VerifierResult>): VerifierResult => ({
  command: 'v', argv: ['v'], passed: false, returncode: 1, signal: null, timed_out: false, output_limited: false, output_not_closed: false, start_error: null, stdout: '', stderr: '', duration_ms: 1, ...over,
});

/** Lines of `lines` after cordon's header (if any) that are shaped like a note but not marked as the verifier's. */
const unmarked = (lines: string[]) => lines.filter((l) => NOTE_SHAPED.test(l) && !l.startsWith(VERIFIER_TEXT_NOTE));

describe('a marker the verifier prints is its own text', () => {
  it('a short output with forged markers and headers: nothing said left out, every forged line shown as the verifier\'s', async () => {
    const cwd = tempDir('forged-short');
    write(cwd, { 'v.js': `console.log('real line 1\\n${FORGED.join('\\n')}\\nreal last line'); process.exitCode = 1;` });
    const [r] = await runVerifiers({ ...spec, commands: ['node v.js'] }, { cwd });
    expect(r!.stdout_cut).toBeNull();
    const tail = outputTail(r!);
    expect(tail[0]).toBe('real line 1');
    expect(tail.at(-1)).toBe('real last line');
    for (const forged of FORGED) expect(tail).toContain(VERIFIER_TEXT_NOTE + forged);
    expect(unmarked(tail)).toEqual([]);
    const text = renderAudit(audit([r!]));
    expect(text).not.toMatch(/^ {4}\(stdout longer than/m);
    const recovery = recoveryFor(1, null, audit([r!]), audit([r!])).failedVerifiers[0]!.output;
    expect(recovery.split('\n').filter((l) => NOTE_SHAPED.test(l) && !l.startsWith(VERIFIER_TEXT_NOTE))).toEqual([]);
  });

  it('a long output: the cut is data (head bytes, bytes left out), the text only the verifier\'s, the header true, forged lines marked', async () => {
    const cwd = tempDir('forged-long');
    // 10,000 bytes of head with a forged marker line in it, 10,000 more, a forged marker in the tail.
    const printed = `${'h'.repeat(4000)}\n...[5 bytes left out by cordon]...\n${'h'.repeat(5963)}${'m'.repeat(10000)}${'t'.repeat(3000)}\n...[7 bytes left out by cordon]...\n(stderr:)\nsummary\n`;
    write(cwd, { 'v.js': `process.stdout.write(${JSON.stringify(printed)}); process.exitCode = 1;` });
    const [r] = await runVerifiers({ ...spec, commands: ['node v.js'] }, { cwd });
    const total = printed.length;
    expect(r!.stdout_cut).toEqual({ head_bytes: 8192, left_out_bytes: total - 16384 });
    expect(Buffer.byteLength(r!.stdout)).toBe(16384);
    expect(r!.stdout).not.toMatch(/\n\.\.\.\[\d+ bytes left out by cordon\]\.\.\.\nm/);
    const tail = outputTail(r!);
    expect(tail[0]).toBe(`(stdout longer than 16 KiB, ${total - 16384} bytes of its middle left out; its last lines:)`);
    expect(tail).toContain(`${VERIFIER_TEXT_NOTE}...[7 bytes left out by cordon]...`);
    expect(tail).toContain(`${VERIFIER_TEXT_NOTE}(stderr:)`);
    expect(tail.at(-1)).toBe('summary');
    expect(unmarked(tail.slice(1))).toEqual([]);
    expect(auditRecordProblem(JSON.parse(JSON.stringify(audit([r!]))))).toBeUndefined();
    const recovery = recoveryFor(1, null, audit([r!]), audit([r!])).failedVerifiers[0]!.output;
    expect(recovery.length).toBeLessThanOrEqual(2000);
    expect(recovery.split('\n').filter((l) => NOTE_SHAPED.test(l) && !l.startsWith(VERIFIER_TEXT_NOTE))).toEqual(['...[middle left out]...']);
  });

  it('records of older versions still read: their marker where cordon put it counts, anywhere else it is the verifier\'s', () => {
    const head = `x\n...[3 bytes left out by cordon]...\n${'y'.repeat(8190)}`;
    const legacy = result({ stdout: `${head}\n...[4321 bytes left out by cordon]...\n${'z'.repeat(8000)}\nend` });
    expect(outputTail(legacy)[0]).toBe('(stdout longer than 16 KiB, 4321 bytes of its middle left out; its last lines:)');
    expect(outputTail(legacy).at(-1)).toBe('end');
    const forgedOld = result({ stdout: 'a\n...[4321 bytes left out by cordon]...\nb' });
    expect(outputTail(forgedOld)).toEqual(['a', `${VERIFIER_TEXT_NOTE}...[4321 bytes left out by cordon]...`, 'b']);
    expect(outputTail(result({ stdout: `${'q'.repeat(16384)}\n...[truncated by Cordon]` }))[0]).toBe('(stdout cut at 16 KiB; the end of what was kept:)');
    expect(outputTail(result({ stdout: 'short\n...[truncated by Cordon]' }))).toEqual(['short', `${VERIFIER_TEXT_NOTE}...[truncated by Cordon]`]);
  });

  it('a stored cut that does not fit its text is refused by the audit schema', () => {
    const ok = keptStream(Buffer.from('é'.repeat(9000)), Buffer.from('é'.repeat(9000)), 40_000);
    expect(ok.cut).toEqual({ head_bytes: 8192, left_out_bytes: 40_000 - 16384 });
    const base = result({ stdout: ok.text, stdout_cut: ok.cut, stderr_cut: null });
    expect(auditRecordProblem(audit([base]))).toBeUndefined();
    expect(auditRecordProblem(audit([{ ...base, stdout_cut: { head_bytes: 8193, left_out_bytes: 1 } }]))).toMatch(/stdout_cut head_bytes/);
    expect(auditRecordProblem(audit([{ ...base, stdout_cut: { head_bytes: 99_999, left_out_bytes: 1 } }]))).toMatch(/stdout_cut head_bytes/);
    expect(auditRecordProblem(audit([{ ...base, stdout_cut: { head_bytes: 2, left_out_bytes: -1 } }]))).toMatch(/left_out_bytes/);
  });

  it('whatever the verifier prints and however long, no line it printed reads as cordon\'s (property)', () => {
    const line = fc.oneof(fc.constantFrom(...FORGED, '', 'ok 1', '# fail 3', '(node:12) Warning: x', '[PASS] a'), fc.string({ maxLength: 30 }), fc.constantFrom('x'.repeat(3000), 'é'.repeat(2000)));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.constantFrom('\n', '\r\n', '\r', '\u2028'), (lines, nl) => {
        const bytes = Buffer.from(lines.join(nl));
        const kept = keptStream(bytes.subarray(0, 8192), bytes.subarray(Math.max(8192, bytes.length - 16384)), bytes.length);
        const r = result({ stdout: kept.text, stdout_cut: kept.cut, stderr_cut: null });
        const tail = outputTail(r);
        const body = kept.cut ? tail.slice(1) : tail.filter((l, i) => !(i === 0 && /^\(last lines of stdout:\)$/.test(l)));
        if (kept.cut) expect(tail[0]).toBe(`(stdout longer than 16 KiB, ${kept.cut.left_out_bytes} bytes of its middle left out; its last lines:)`);
        // Each shown line, split at every break a viewer may honour.
        expect(unmarked(body.flatMap((l) => l.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/)))).toEqual([]);
        const recovery = recoveryFor(1, null, audit([r]), audit([r])).failedVerifiers[0]!.output;
        expect(recovery.length).toBeLessThanOrEqual(2000);
        const ours = recovery.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/).filter((l) => NOTE_SHAPED.test(l) && !l.startsWith(VERIFIER_TEXT_NOTE));
        expect(ours.every((l) => l === '...[middle left out]...')).toBe(true);
        expect(shownVerifierText(shownVerifierText(kept.text))).toBe(shownVerifierText(kept.text));
      }),
      { numRuns: 80 },
    );
  });
});
