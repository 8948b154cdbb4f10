import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SESSION_DIR_LENGTH, RUNS_DIR, UNKNOWN_SESSION, sanitizeSessionId, sessionDir, sessionNameProblem } from '../../src/telemetry/session-dir.js';

describe('sanitizeSessionId', () => {
  it('keeps the ids agents really send', () => {
    for (const id of ['458959e6-c878-410e-a259-d3141ffa1f15', '01a22a34-d73b-70f3-bcf9-69edeb966f43', 'sess_abc123', 'wrap-1796000000']) expect(sanitizeSessionId(id)).toBe(id);
  });

  it('never lets an id climb out of runs/ or name a hidden, empty or odd directory', () => {
    for (const id of ['../x', '..', '.', '/etc/passwd', 'a/../../b', 'a\0b', 'call_x\nctc_y', '.hidden', '-rf', 'x'.repeat(5000), ' ', 'ü-ñ']) {
      const name = sanitizeSessionId(id);
      expect(name, JSON.stringify(id)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
      expect(name.length).toBeLessThanOrEqual(MAX_SESSION_DIR_LENGTH);
      expect(name).not.toBe('..');
      expect(sessionDir('/data', id)).toBe(join('/data', RUNS_DIR, name));
    }
  });

  it('keeps ids apart that differ only in a lone surrogate (UTF-8 would turn both into U+FFFD)', () => {
    const names = ['a\ud800', 'a\ud801', 'a\udc00', 'a\ufffd', 'a\ud83d'].map(sanitizeSessionId);
    expect(new Set(names).size).toBe(names.length);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }), (a, b) => {
        if (a !== b && a !== '' && b !== '') expect(sanitizeSessionId(b)).not.toBe(sanitizeSessionId(a));
      }),
      { numRuns: 500 },
    );
  });

    it('maps missing and non-string ids to unknown-session', () => {
    for (const id of [undefined, null, '', 42, {}, []]) expect(sanitizeSessionId(id)).toBe(UNKNOWN_SESSION);
  });

  it('is stable and keeps different ids apart (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }), (a, b) => {
        const sa = sanitizeSessionId(a);
        expect(sanitizeSessionId(a)).toBe(sa);
        expect(sa).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
        if (a !== b && a !== '' && b !== '') expect(sanitizeSessionId(b)).not.toBe(sa);
      }),
      { numRuns: 500 },
    );
  });
});

describe('sessionNameProblem', () => {
  it('accepts exactly the names the session directory keeps as they are (wrap --session)', () => {
    expect(sessionNameProblem('fix-42')).toBeUndefined();
    expect(sessionNameProblem('../evil')).toBe(`not a plain session name: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most ${MAX_SESSION_DIR_LENGTH} characters`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 120 }), fc.stringMatching(/^[A-Za-z0-9._\/-]{0,100}$/)), (name) => {
        expect(sessionNameProblem(name) === undefined).toBe(name !== '' && sanitizeSessionId(name) === name);
      }),
    );
  });
});
