import type { LedgerCompaction, LedgerMessage, LedgerRole } from '@cordon/plugin-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outlineOf, renderLayout, renderModelItems, renderText, renderWithRoles, strongestRole, visibleEntries, visibleIds, visibleIdsFromSeqs } from '../../src/ledger/index.js';

const msg = (seq: number, role: LedgerRole, text: string): LedgerMessage => ({ id: `msg${seq}`, seq, role, text, source: null, createdAtMs: 0 });
const cmp = (n: number, fromSeq: number, toSeq: number, summary: string): LedgerCompaction => ({
  id: `cmp${n}`,
  seq: n,
  fromMessageId: `msg${fromSeq}`,
  toMessageId: `msg${toSeq}`,
  fromSeq,
  toSeq,
  summary,
  nMessagesReplaced: toSeq - fromSeq + 1,
  createdAtMs: 0,
});

describe('visible entries and render (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  it('renders the reference example [cmp1, msg3] byte for byte', () => {
    const state = { messages: [msg(1, 'user', 'old ask'), msg(2, 'assistant', 'old work'), msg(3, 'assistant', 'current result')], compactions: [cmp(1, 1, 2, 'summary of stale work')] };
    expect(visibleIds(state)).toEqual(['cmp1', 'msg3']);
    expect(renderText(visibleEntries(state))).toBe('summary of stale work\n<aboveturn id="cmp1"/>\n\ncurrent result\n<aboveturn id="msg3"/>');
  });

  it('keeps a trailing newline of the text: text\\n\\n<aboveturn …/>; adds none at the end', () => {
    const state = { messages: [msg(1, 'user', 'line\n'), msg(2, 'user', '  spaced  ')], compactions: [] };
    expect(renderText(visibleEntries(state))).toBe('line\n\n<aboveturn id="msg1"/>\n\n  spaced  \n<aboveturn id="msg2"/>');
  });

  it('renders an empty session as the empty string', () => {
    expect(renderText(visibleEntries({ messages: [], compactions: [] }))).toBe('');
  });

  it('skips every message a compaction covers and continues after its last one', () => {
    const messages = [1, 2, 3, 4, 5, 6].map((s) => msg(s, 'assistant', `t${s}`));
    const state = { messages, compactions: [cmp(1, 2, 3, 'a'), cmp(4, 5, 6, 'b')] };
    expect(visibleIds(state)).toEqual(['msg1', 'cmp1', 'msg4', 'cmp4']);
  });

  it('gives a compaction the strongest role it covers: system > developer > user > assistant; tool counts as assistant', () => {
    const roles: LedgerRole[] = ['assistant', 'tool', 'user', 'developer', 'system'];
    const messages = roles.map((r, i) => msg(i + 1, r, r));
    const roleOf = (from: number, to: number) => visibleEntries({ messages, compactions: [cmp(1, from, to, 's')] }).find((e) => e.id === 'cmp1')!.role;
    expect(roleOf(1, 2)).toBe('assistant');
    expect(roleOf(1, 3)).toBe('user');
    expect(roleOf(2, 4)).toBe('developer');
    expect(roleOf(1, 5)).toBe('system');
  });

  it('role-aware text render puts a [role] line above each block', () => {
    const state = { messages: [msg(1, 'user', 'ask'), msg(2, 'assistant', 'x'), msg(3, 'assistant', 'answer')], compactions: [cmp(1, 1, 2, 'sum')] };
    expect(renderWithRoles(visibleEntries(state))).toBe('[compaction msg1..msg2, as user]\nsum\n<aboveturn id="cmp1"/>\n\n[assistant]\nanswer\n<aboveturn id="msg3"/>');
  });

  it('model render: one Responses message item per entry, output_text for assistant, input_text otherwise', () => {
    const state = { messages: [msg(1, 'developer', 'rules'), msg(2, 'user', 'ask'), msg(3, 'assistant', 'answer')], compactions: [] };
    expect(renderModelItems(visibleEntries(state))).toEqual([
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'rules\n<aboveturn id="msg1"/>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'ask\n<aboveturn id="msg2"/>' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'answer\n<aboveturn id="msg3"/>' }] },
    ]);
  });

  it('model render refuses a visible tool row and says to compact it with its assistant call; a compacted one is fine', () => {
    const messages = [msg(1, 'assistant', 'call'), msg(2, 'tool', 'out'), msg(3, 'assistant', 'done')];
    expect(() => renderModelItems(visibleEntries({ messages, compactions: [] }))).toThrow(/visible tool message msg2 .*compact it together with the assistant message/);
    const items = renderModelItems(visibleEntries({ messages, compactions: [cmp(1, 1, 2, 'ran ls')] }));
    expect(items[0]).toEqual({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ran ls\n<aboveturn id="cmp1"/>' }] });
  });
});

describe('visible ids from sequence numbers alone', () => {
  it('equal the ids of the message walk for any set of disjoint compactions', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 10 }), (n, spans) => {
        const messages = Array.from({ length: n }, (_, i) => msg(i + 1, 'assistant', 'x'));
        const compactions: LedgerCompaction[] = [];
        let next = 1;
        for (const [gap, len] of spans) {
          const from = next + (gap % 4);
          const to = from + (len % 5);
          if (to > n) break;
          compactions.push(cmp(compactions.length + 1, from, to, 's'));
          next = to + 1;
        }
        expect(visibleIdsFromSeqs(n, compactions)).toEqual(visibleIds({ messages, compactions }));
      }),
    );
  });
});

describe('the render layout from sequence numbers and role codes', () => {
  it('shows the entries of the message walk, with the same compaction roles, even for overlapping compactions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<LedgerRole>('system', 'developer', 'user', 'assistant', 'tool'), { maxLength: 40 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 42 }), fc.integer({ min: 0, max: 6 })), { maxLength: 8 }),
        (roles, spans) => {
          const messages = roles.map((r, i) => msg(i + 1, r, r));
          // Sorted by start as the ledger reads them; starts may repeat or fall inside another (a database written elsewhere).
          const compactions = spans.map(([from, len], i) => cmp(i + 1, from, from + len, `s${i}`)).sort((a, b) => a.fromSeq - b.fromSeq);
          const state = { messages, compactions };
          const { maxSeq, roleCodes } = outlineOf(state);
          const fromLayout = renderLayout(maxSeq, compactions).flatMap((s) =>
            s.kind === 'compaction' ? [[s.compaction.id, strongestRole(roleCodes, s.compaction.fromSeq, s.compaction.toSeq)]] : messages.slice(s.from - 1, s.to).map((m) => [m.id, m.role]),
          );
          expect(fromLayout).toEqual(visibleEntries(state).map((e) => [e.id, e.role]));
        },
      ),
    );
  });
});
