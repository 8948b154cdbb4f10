import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LedgerRole, VisibleEntry } from '@cordon/plugin-api';
import type { Ledger } from '../../src/ledger/index.js';
import { ledgerSandbox } from './helpers.js';

// Issue 12 item 6: a tool result recorded after its call was compacted joins that compaction;
// the render never separates a call from its results, and errors name only visible ids.

const { L, dir } = ledgerSandbox();

async function session(name = 's'): Promise<Ledger> {
  const ledger = await L.open(join(dir(), `${name}.sqlite3`));
  await ledger.resolveSession({ mode: 'create', id: 's' });
  return ledger;
}

const rec = (ledger: Ledger, role: LedgerRole, text: string = role) => ledger.record('s', [{ role, text }]);

/**
 * The shape model providers accept: every visible tool message directly follows (in the render)
 * the visible message before it in the conversation, an assistant call or an earlier result of
 * it; every visible assistant message whose next message is a tool result shows that result
 * right after it. Returns a description of the first violation, or undefined.
 */
function splitGroup(entries: readonly VisibleEntry[], roles: readonly LedgerRole[]): string | undefined {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.kind !== 'message') continue;
    const seq = e.message.seq;
    if (e.role === 'tool') {
      const before = entries[i - 1];
      if (!before || before.kind !== 'message' || before.message.seq !== seq - 1 || !['assistant', 'tool'].includes(before.role)) return `${e.id} shows without its call before it`;
    }
    if ((e.role === 'assistant' || e.role === 'tool') && roles[seq + 1] === 'tool') {
      const after = entries[i + 1];
      if (!after || after.kind !== 'message' || after.message.seq !== seq + 1) return `${e.id} shows without its result msg${seq + 1} after it`;
    }
  }
  return undefined;
}

/** Ids an error names that are neither visible nor ones the request itself named. */
function foreignIds(message: string, visible: readonly string[], named: readonly string[]): string[] {
  return (message.match(/\b(?:msg|cmp)\d+\b/g) ?? []).filter((id) => !visible.includes(id) && !named.includes(id));
}

describe('late tool results join the compaction that hides their call', () => {
  it('the issue example: user msg1, call msg2, compact msg1..msg2, then the result msg3', async () => {
    const ledger = await session();
    await rec(ledger, 'user', 'run the tests');
    await rec(ledger, 'assistant', 'call: npm test');
    const c = await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'asked to run tests; called npm test' }]);
    expect(c.ranges[0]!.id).toBe('cmp1');
    const [result] = await rec(ledger, 'tool', '3 passed');
    expect(result).toMatchObject({ id: 'msg3', attachedTo: 'cmp1' });
    expect(await ledger.visibleIds('s')).toEqual(['cmp1']);
    expect(await ledger.render('s')).toBe('asked to run tests; called npm test\n<aboveturn id="cmp1"/>');
    expect((await ledger.compactions('s'))[0]).toMatchObject({ fromMessageId: 'msg1', toMessageId: 'msg3', nMessagesReplaced: 3 });
    // Repairing by hand is not needed; msg3 is hidden, and the error says which visible id hides it.
    await expect(ledger.compact('s', [{ from: 'msg3', to: 'msg3', summary: 'x' }])).rejects.toMatchObject({
      message: 'endpoint `msg3` is not visible in the current session; it is covered by cmp1; use cmp1 as the endpoint',
    });
    // The next turn goes on after the whole group.
    await rec(ledger, 'assistant', 'tests pass');
    expect(await ledger.visibleIds('s')).toEqual(['cmp1', 'msg4']);
    const undo = await ledger.uncompact('s', 'cmp1');
    expect(undo).toMatchObject({ nMessagesRestored: 3, visibleIds: ['msg1', 'msg2', 'msg3', 'msg4'] });
  });

  it('a late second result after a whole call+results group was compacted', async () => {
    const ledger = await session();
    for (const role of ['user', 'assistant', 'tool'] as const) await rec(ledger, role);
    await ledger.compact('s', [{ from: 'msg2', to: 'msg3', summary: 'called, first result' }]);
    const late = await ledger.record('s', [{ role: 'tool', text: 'second' }, { role: 'tool', text: 'third' }, { role: 'assistant', text: 'next' }]);
    expect(late.map((m) => [m.id, m.attachedTo])).toEqual([
      ['msg4', 'cmp1'],
      ['msg5', 'cmp1'],
      ['msg6', undefined],
    ]);
    expect(await ledger.visibleIds('s')).toEqual(['msg1', 'cmp1', 'msg6']);
  });

  it('nested compactions that end at the call all take the result in, so uncompacting the outer one keeps the group whole', async () => {
    const ledger = await session();
    await rec(ledger, 'user');
    await rec(ledger, 'assistant', 'call');
    await ledger.compact('s', [{ from: 'msg2', to: 'msg2', summary: 'the call' }]);
    await ledger.compact('s', [{ from: 'msg1', to: 'cmp1', summary: 'everything' }]);
    const [result] = await rec(ledger, 'tool', 'out');
    expect(result!.attachedTo).toBe('cmp2');
    expect(await ledger.visibleIds('s')).toEqual(['cmp2']);
    expect(await ledger.uncompact('s', 'cmp2')).toMatchObject({ reinstated: ['cmp1'], visibleIds: ['msg1', 'cmp1'] });
    expect((await ledger.compactions('s'))[0]).toMatchObject({ id: 'cmp1', fromMessageId: 'msg2', toMessageId: 'msg3' });
  });

  it('a result with no call before it is refused, naming no id', async () => {
    const ledger = await session();
    await expect(rec(ledger, 'tool')).rejects.toMatchObject({ code: 'CORDON_LEDGER_REFUSED', message: expect.stringContaining('record the assistant message that made the call first') });
    await rec(ledger, 'user');
    await expect(rec(ledger, 'tool')).rejects.toMatchObject({ message: 'a tool message records the result of a call: it must follow an assistant message or another tool message, and the message before it is a user message' });
    // In one batch too, all or nothing.
    await expect(ledger.record('s', [{ role: 'assistant', text: 'a' }, { role: 'system', text: 'b' }, { role: 'tool', text: 'c' }])).rejects.toMatchObject({ message: expect.stringContaining('is a system message') });
    expect(await ledger.visibleIds('s')).toEqual(['msg1']);
  });

  it('a ledger written before this rule (a result shown after a compacted call) gets errors that name visible ids only', async () => {
    const path = join(dir(), 'old.sqlite3');
    const ledger = await L.open(path);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', [{ role: 'user', text: 'u' }, { role: 'assistant', text: 'call' }]);
    await ledger.compact('s', [{ from: 'msg1', to: 'msg2', summary: 'old summary' }]);
    // What an older cordon stored: the result after the compaction, outside it.
    const raw = new Database(path);
    raw.prepare(`insert into messages (session_id, id, seq, role, text, source, created_at_ms) values ('s', 'msg3', 3, 'tool', 'late', null, 0)`).run();
    raw.close();
    expect(await ledger.visibleIds('s')).toEqual(['cmp1', 'msg3']);
    await expect(ledger.compact('s', [{ from: 'msg3', to: 'msg3', summary: 'x' }])).rejects.toMatchObject({
      message: 'range msg3..msg3 splits a tool_use/tool_result group at msg3; extend the range start back to cmp1 or start after msg3',
    });
    // The advice works.
    await ledger.compact('s', [{ from: 'cmp1', to: 'msg3', summary: 'whole' }]);
    expect(await ledger.visibleIds('s')).toEqual(['cmp2']);
  });
});

type Op = { kind: 'record'; role: LedgerRole; n: number } | { kind: 'compact'; a: number; b: number } | { kind: 'uncompact'; pick: number };

const ROLE = fc.constantFrom<LedgerRole>('user', 'assistant', 'assistant', 'tool', 'tool', 'tool', 'system');
const OP: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('record' as const), role: ROLE, n: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('compact' as const), a: fc.nat(40), b: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('uncompact' as const), pick: fc.nat(10) }) },
);

describe('property: whatever order records, compactions and undos arrive in', () => {
  it('the render never holds a result without its call or a call without its results, and errors name only visible ids', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(OP, { minLength: 1, maxLength: 25 }), async (ops) => {
        const ledger = await session(`p${run++}`);
        const roles: LedgerRole[] = ['system'];
        try {
          for (const op of ops) {
            const visible = await ledger.visibleIds('s');
            let named: string[] = [];
            try {
              if (op.kind === 'record') {
                const stored = await ledger.record('s', Array.from({ length: op.n }, () => ({ role: op.role, text: op.role })));
                for (const m of stored) roles[m.seq] = m.role;
              } else if (op.kind === 'compact') {
                if (visible.length === 0) continue;
                const [from, to] = [visible[op.a % visible.length]!, visible[op.b % visible.length]!];
                named = [from, to];
                await ledger.compact('s', [{ from, to, summary: 'sum' }]);
              } else {
                const active = (await ledger.compactions('s')).map((c) => c.id);
                if (active.length === 0) continue;
                named = [active[op.pick % active.length]!];
                await ledger.uncompact('s', named[0]!);
              }
            } catch (error) {
              expect((error as { code?: string }).code).toBe('CORDON_LEDGER_REFUSED');
              expect(foreignIds((error as Error).message, visible, named), (error as Error).message).toEqual([]);
            }
            const entries = await ledger.visible('s');
            expect(splitGroup(entries, roles), JSON.stringify(ops)).toBeUndefined();
          }
        } finally {
          await ledger.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
