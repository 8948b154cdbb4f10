import type { LedgerModelItem } from '@cordon/plugin-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INJECT_BATCH_BYTES, injectHistory, planInjection } from '../../../src/pcodx/app-server/inject.js';
import { APP_SERVER_WS_LIMITS } from '../../../src/pcodx/app-server/limits.js';

// The batching both `pcodx serve` (websocket) and `pcodx model-turn` (stdio) seed a fresh thread with.

const item = (role: 'user' | 'assistant', text: string): LedgerModelItem => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] });

/** Calls recorded in order: each `thread/inject_items` params as the app-server would read them (one JSON text). */
function recorder() {
  const calls: Array<{ method: string; json: string }> = [];
  return { calls, call: async (method: string, params: unknown) => void calls.push({ method, json: JSON.stringify({ id: 1, method, params }) }) };
}

describe('injectHistory', () => {
  it('sends the history in order in calls that each fit the app-server frame, an oversized item alone', async () => {
    // Multi-byte text, control characters and quotes (JSON escapes grow them): sizes are counted as sent.
    const texts = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('\u0000\u001b[31m"\\', '日本語 ✓ 😀'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), texts), { maxLength: 40 }), fc.integer({ min: 1, max: 300 }), async (list, max) => {
        const items = list.map(([assistant, text], i) => item(assistant ? 'assistant' : 'user', `${text} #${i}`));
        const { calls, call } = recorder();
        const result = await injectHistory(call, 'th-1', items, max);
        expect(calls.every((c) => c.method === 'thread/inject_items')).toBe(true);
        const sent = calls.map((c) => JSON.parse(c.json).params as { threadId: string; items: LedgerModelItem[] });
        expect(sent.every((p) => p.threadId === 'th-1' && p.items.length > 0)).toBe(true);
        expect(sent.flatMap((p) => p.items)).toEqual(items);
        for (const p of sent) if (p.items.length > 1) expect(Buffer.byteLength(JSON.stringify(p.items))).toBeLessThanOrEqual(max + 1);
        expect(result).toEqual({ calls: calls.length, jsonBytes: Buffer.byteLength(JSON.stringify(items)) });
      }),
      { numRuns: 300 },
    );
  });

  it('cuts a history above 16 MiB into calls of at most 16 MiB each, every line well under the frame the websocket reader takes', async () => {
    const MIB = 1024 * 1024;
    // 40 answers of 1 MiB and three of 5 MiB with multi-byte characters: about 58 MiB in all.
    const items = [...Array.from({ length: 40 }, (_, i) => item(i % 2 ? 'assistant' : 'user', `${i} ${'x'.repeat(MIB)}`)), ...[0, 1, 2].map((i) => item('assistant', `big${i} ${'é'.repeat(2.5 * MIB)}`))];
    const { calls, call } = recorder();
    const result = await injectHistory(call, 'th', items);
    expect(calls.length).toBeGreaterThanOrEqual(4);
    for (const c of calls) expect(Buffer.byteLength(c.json)).toBeLessThanOrEqual(APP_SERVER_WS_LIMITS.frameBytes);
    expect(calls.flatMap((c) => JSON.parse(c.json).params.items.map((it: LedgerModelItem) => it.content[0]!.text.slice(0, 6)))).toEqual(items.map((it) => it.content[0]!.text.slice(0, 6)));
    expect(result.jsonBytes).toBe(Buffer.byteLength(JSON.stringify(items)));
    expect(INJECT_BATCH_BYTES).toBeLessThan(APP_SERVER_WS_LIMITS.frameBytes);
  });

  it('an empty history makes no call; a failed call stops the rest', async () => {
    const { calls, call } = recorder();
    expect(await injectHistory(call, 't', [])).toEqual({ calls: 0, jsonBytes: 2 });
    expect(calls).toEqual([]);
    let n = 0;
    const failing = async () => {
      if (++n === 2) throw new Error('thread not found');
    };
    await expect(injectHistory(failing, 't', [item('user', 'a'.repeat(50)), item('user', 'b'.repeat(50)), item('user', 'c'.repeat(50))], 60)).rejects.toThrow('thread not found');
    expect(n).toBe(2);
  });

  it('planInjection counts the bytes of the JSON array it never builds', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 30 }), { maxLength: 20 }), (list) => {
        expect(planInjection(list, 50).jsonBytes).toBe(Buffer.byteLength(JSON.stringify(list)));
      }),
    );
  });
});
