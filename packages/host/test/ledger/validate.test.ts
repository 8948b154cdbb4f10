import type { LedgerCompaction, LedgerMessage, LedgerRangeRequest, LedgerRole } from '@cordon/plugin-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outlineOf, validateCompaction, visibleEntries } from '../../src/ledger/index.js';

const msg = (seq: number, role: LedgerRole): LedgerMessage => ({ id: `msg${seq}`, seq, role, text: '', source: null, createdAtMs: 0 });
const cmp = (n: number, fromSeq: number, toSeq: number): LedgerCompaction => ({
  id: `cmp${n}`,
  seq: n,
  fromMessageId: `msg${fromSeq}`,
  toMessageId: `msg${toSeq}`,
  fromSeq,
  toSeq,
  summary: `s${n}`,
  nMessagesReplaced: toSeq - fromSeq + 1,
  createdAtMs: 0,
});
const state = (roles: LedgerRole[], compactions: LedgerCompaction[] = []) => ({ messages: roles.map((r, i) => msg(i + 1, r)), compactions });
const r = (from: string, to: string, summary = 'sum'): LedgerRangeRequest => ({ from, to, summary });
const A: LedgerRole = 'assistant';

/** The error message validation throws, asserting it is a ledger refusal. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect((error as { code?: string }).code).toBe('CORDON_LEDGER_REFUSED');
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('compaction validation, in the order of the Rust pcodx, SichangHe/partial_compact_codex', () => {
  const six = state([A, A, A, A, A, A]);

  it('1. refuses an empty request before looking at the session', () => {
    expect(refusal(() => validateCompaction('gone', false, six, []))).toBe('provide at least one compaction range');
  });

  it('2. refuses an unknown session before looking at the ranges', () => {
    expect(refusal(() => validateCompaction('gone', false, six, [r('nope', 'nope', '')]))).toBe('unknown session `gone` (`cordon pcodx sessions` lists the sessions of this ledger)');
  });

  it('3a. refuses a blank summary (after trimming) before checking that range\'s endpoints', () => {
    expect(refusal(() => validateCompaction('s', true, six, [r('msg99', 'msg1', ' \n\t')]))).toBe('summary must be non-empty (range msg99..msg1)');
  });

  // A probe: `compact --summary $'\u200b'` was accepted, and the invisible summary hid msg1-msg2.
  // Also accepted: variation selectors alone (U+FE0F, U+E0100) and the blank braille pattern
  // U+2800, each showing as nothing where the range was.
  it.each([['\u200b'], ['\u200b\u200d \ufeff'], ['\u202e\u2066'], ['\u2060\u00a0'], ['\ufe0f'], ['\u{e0100}\ufe0e'], ['\u2800 \u2800'], ['\u180b\u200b']])('3a. refuses a summary of invisible characters only (%j)', (summary) => {
    expect(refusal(() => validateCompaction('s', true, six, [r('msg1', 'msg2', summary)]))).toBe('summary must hold text that shows, not only invisible characters such as U+200B (range msg1..msg2)');
    expect(() => validateCompaction('s', true, six, [r('msg1', 'msg2', `\u200bok`)])).not.toThrow();
    // A variation selector after a character that shows is that character's look, not a blank.
    expect(() => validateCompaction('s', true, six, [r('msg1', 'msg2', '\u2764\ufe0f')])).not.toThrow();
  });

  it('3b. refuses endpoints that are not visible: malformed ids, unknown ids and messages hidden in a compaction', () => {
    const hidden = state([A, A, A, A], [cmp(1, 1, 3)]);
    for (const bad of ['msg9', 'cmp7', 'MSG4', ' msg4', 'x', 'msg02']) {
      expect(refusal(() => validateCompaction('s', true, hidden, [r(bad, 'msg4')]))).toBe(`endpoint \`${bad}\` is not visible in the current session; use visible msg/cmp endpoints`);
    }
    // A message hidden in a compaction: the refusal names the compaction to use instead.
    expect(refusal(() => validateCompaction('s', true, hidden, [r('msg2', 'msg4')]))).toBe('endpoint `msg2` is not visible in the current session; it is covered by cmp1; use cmp1 as the endpoint');
    expect(refusal(() => validateCompaction('s', true, hidden, [r('cmp1', 'msg3')]))).toContain('endpoint `msg3` is not visible in the current session; it is covered by cmp1');
  });

  it('3d. refuses a reversed range, comparing resolved sequence numbers', () => {
    expect(refusal(() => validateCompaction('s', true, six, [r('msg4', 'msg2')]))).toBe('`msg4` comes after `msg2`');
    const nested = state([A, A, A, A, A], [cmp(1, 2, 4)]);
    expect(refusal(() => validateCompaction('s', true, nested, [r('msg5', 'cmp1')]))).toBe('`msg5` comes after `cmp1`');
  });

  it('3. checks ranges in request order: the first range\'s problem wins over a later one\'s', () => {
    expect(refusal(() => validateCompaction('s', true, six, [r('msg9', 'msg1'), r('msg1', 'msg2', '')]))).toContain('endpoint `msg9`');
    expect(refusal(() => validateCompaction('s', true, six, [r('msg1', 'msg2', ''), r('msg9', 'msg1')]))).toContain('summary must be non-empty');
  });

  describe('5. tool groups (an assistant row and the tool rows right after it)', () => {
    // msg1 user, msg2 assistant call, msg3-4 tool results, msg5 assistant
    const s = state(['user', 'assistant', 'tool', 'tool', 'assistant']);

    it('refuses a range that starts inside the tool results, advising to extend back or start after', () => {
      expect(refusal(() => validateCompaction('s', true, s, [r('msg3', 'msg5')]))).toBe(
        'range msg3..msg5 splits a tool_use/tool_result group at msg3; extend the range start back to msg2 or start after msg4',
      );
      expect(refusal(() => validateCompaction('s', true, s, [r('msg4', 'msg4')]))).toContain('extend the range start back to msg2 or start after msg4');
    });

    it('refuses a range that covers the assistant call but stops before its last result, advising to extend to it', () => {
      expect(refusal(() => validateCompaction('s', true, s, [r('msg1', 'msg3')]))).toBe('range msg1..msg3 splits a tool_use/tool_result group at msg2; extend the range to msg4');
      expect(refusal(() => validateCompaction('s', true, s, [r('msg2', 'msg2')]))).toContain('extend the range to msg4');
    });

    it('accepts ranges that cover a whole group or stay clear of it', () => {
      expect(validateCompaction('s', true, s, [r('msg2', 'msg4')])[0]).toMatchObject({ fromSeq: 2, toSeq: 4 });
      expect(validateCompaction('s', true, s, [r('msg1', 'msg5')])[0]).toMatchObject({ fromSeq: 1, toSeq: 5 });
      expect(validateCompaction('s', true, s, [r('msg5', 'msg5')])[0]).toMatchObject({ fromSeq: 5, toSeq: 5 });
    });

    it('runs after the per-range checks and before the overlap check', () => {
      expect(refusal(() => validateCompaction('s', true, s, [r('msg3', 'msg5'), r('msg9', 'msg9')]))).toContain('endpoint `msg9`');
      expect(refusal(() => validateCompaction('s', true, s, [r('msg1', 'msg1'), r('msg1', 'msg3')]))).toContain('splits a tool_use/tool_result group');
    });
  });

  it('6. refuses requested ranges that overlap each other, naming the later start', () => {
    expect(refusal(() => validateCompaction('s', true, six, [r('msg3', 'msg5'), r('msg1', 'msg3')]))).toBe('range starting at msg3 overlaps another requested range');
    expect(validateCompaction('s', true, six, [r('msg3', 'msg5'), r('msg1', 'msg2')]).map((x) => x.index)).toEqual([0, 1]);
  });

  it('7. nests: a range whose cmp endpoints cover earlier compactions supersedes them', () => {
    const s = state([A, A, A, A, A, A], [cmp(1, 1, 2), cmp(2, 4, 5)]);
    const [only] = validateCompaction('s', true, s, [r('cmp1', 'cmp2')]);
    expect(only).toMatchObject({ fromSeq: 1, toSeq: 5 });
    expect(only!.supersedes.map((c) => c.id)).toEqual(['cmp1', 'cmp2']);
  });

  it('7. refuses a partial overlap with an existing compaction (a database whose active compactions overlap)', () => {
    // cmp1 1..3 and cmp2 2..5 cannot both be active when written by this ledger; step 7 still guards.
    const s = state([A, A, A, A, A, A], [cmp(1, 1, 3), cmp(2, 2, 5)]);
    expect(refusal(() => validateCompaction('s', true, s, [r('cmp1', 'msg4')]))).toBe('range cmp1..msg4 partially overlaps compaction cmp2; use visible cmp endpoints or choose a non-overlapping range');
  });

  it('8. warns (does not refuse) when a range holds system, developer or user messages', () => {
    const s = state(['system', 'developer', 'user', 'assistant', 'tool', 'assistant']);
    for (const [from, to] of [['msg1', 'msg1'], ['msg2', 'msg2'], ['msg3', 'msg3']]) {
      expect(validateCompaction('s', true, s, [r(from!, to!)])[0]!.warning).toContain('human intent');
    }
    expect(validateCompaction('s', true, s, [r('msg4', 'msg5')])[0]!.warning).toBeUndefined();
    expect(validateCompaction('s', true, s, [r('msg6', 'msg6')])[0]!.warning).toBeUndefined();
  });

  it('returns ranges in request order with their resolved sequence numbers', () => {
    const out = validateCompaction('s', true, six, [r('msg5', 'msg6'), r('msg1', 'msg2')]);
    expect(out.map((x) => [x.index, x.fromSeq, x.toSeq])).toEqual([
      [0, 5, 6],
      [1, 1, 2],
    ]);
  });
});

describe('endpoint lookup without listing the visible entries', () => {
  // validateCompaction resolves ids from the render layout (compactions and message runs); the
  // walk over every message (visibleEntries) is the reference, overlapping compactions included.
  it('resolves exactly the ids the walk shows, to the same bounds, and refuses the others', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<LedgerRole>('system', 'user', 'assistant'), { maxLength: 30 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 5 })), { maxLength: 6 }),
        fc.array(fc.oneof(fc.integer({ min: 0, max: 33 }).map((n) => `msg${n}`), fc.integer({ min: 0, max: 7 }).map((n) => `cmp${n}`), fc.constantFrom('msg01', 'msg', 'x')), { minLength: 1, maxLength: 8 }),
        (roles, spans, ids) => {
          const compactions = spans.map(([from, len], i) => cmp(i + 1, from, from + len)).sort((a, b) => a.fromSeq - b.fromSeq);
          const s = state(roles, compactions);
          const bounds = new Map(visibleEntries(s).map((e) => [e.id, e.kind === 'message' ? [e.message.seq, e.message.seq] : [e.compaction.fromSeq, e.compaction.toSeq]] as const));
          for (const id of ids) {
            let got: [number, number] | string;
            try {
              const [only] = validateCompaction('s', true, outlineOf(s), [r(id, id)]);
              got = [only!.fromSeq, only!.toSeq];
            } catch (error) {
              got = (error as Error).message;
            }
            const want = bounds.get(id);
            if (want) {
              // Visible: resolved to the walk's bounds unless a later step refuses it.
              if (Array.isArray(got)) expect(got).toEqual(want);
              else expect(got).not.toMatch(/is not visible/);
            } else {
              expect(got).toMatch(new RegExp(`^endpoint \`${id}\` is not visible`));
            }
          }
        },
      ),
    );
  });
});
