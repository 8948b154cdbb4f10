/// <reference lib="es2024.string" />
// String.prototype.toWellFormed: Node 20 has it (V8 11.3); the build's lib (ES2023) does not list it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cutCodePoints } from '@cordon/plugin-api';
import { Ledger } from '../../../../packages/host/src/ledger/index.js';
import { PROMPT_FRAGMENTS } from '../../src/pcodx/prompts/fragments.js';
import { partialCompact, runPcodxTool, toolResponse } from '../../src/pcodx/tools/call.js';
import { PCODX_TOOLS, pcodxToolSpecs, withPcodxInstructions } from '../../src/pcodx/tools/definitions.js';

let dir: string;
let ledger: Ledger;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pcodx-tools-'));
  ledger = await Ledger.open({ path: join(dir, 'l.sqlite3') });
  await ledger.resolveSession({ mode: 'create', id: 'S' });
  await ledger.record('S', [
    { role: 'user', text: 'ask' },
    { role: 'assistant', text: 'call' },
    { role: 'tool', text: 'output' },
    { role: 'assistant', text: 'a' },
    { role: 'assistant', text: 'b' },
  ]);
});
afterEach(async () => {
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

const json = async (args: unknown) => JSON.parse(await partialCompact(ledger, 'S', args)) as Record<string, unknown>;

describe('pcodx dynamic tools (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  it('defines three function tools with descriptions from the fragments and a strict ranges schema', () => {
    const specs = pcodxToolSpecs();
    expect(specs.map((s) => [s.type, s.name])).toEqual([
      ['function', 'partial_compact_instructions'],
      ['function', 'partial_compact_current_session_message_ids'],
      ['function', 'partial_compact'],
    ]);
    expect(specs[0]!.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(specs[2]!.description).toBe(
      'Replace ranges of earlier messages in this session with summaries you write, so later turns see less stale context. Unless its text is already in your context, call partial_compact_instructions first and follow it.',
    );
    const ranges = (specs[2]!.inputSchema as { properties: { ranges: { minItems: number; items: { required: string[]; additionalProperties: boolean } } } }).properties.ranges;
    expect(ranges.minItems).toBe(1);
    expect(ranges.items.required).toEqual(['from_message_id', 'to_message_id', 'summary']);
    expect(ranges.items.additionalProperties).toBe(false);
  });

  it('appends the developer-instructions block once, after a blank line', () => {
    const once = withPcodxInstructions('Be terse.');
    expect(once.startsWith('Be terse.\n\nPCODX partial compaction is available')).toBe(true);
    expect(once).toContain(PROMPT_FRAGMENTS['partial-compact-instruction.md'].trim());
    expect(withPcodxInstructions(once)).toBe(once);
    expect(withPcodxInstructions(null).startsWith('PCODX partial compaction')).toBe(true);
  });
});

describe('pcodx tool calls (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  it('answers the instructions and ids tools, and refuses unknown tools', async () => {
    expect(await runPcodxTool(ledger, 'S', PCODX_TOOLS.instructions, {})).toBe(PROMPT_FRAGMENTS['partial-compact-instruction.md'].trim());
    expect(await runPcodxTool(ledger, 'S', PCODX_TOOLS.messageIds, {})).toContain('- msg1, msg2, msg3, msg4, msg5\n');
    const unknown = await runPcodxTool(ledger, 'S', 'rm_rf', {});
    expect(JSON.parse(unknown)).toEqual({ error: 'unknown tool `rm_rf`' });
    expect(toolResponse(unknown).success).toBe(false);
    expect(toolResponse('plain text').success).toBe(true);
    expect(toolResponse('{"ok":1}')).toEqual({ contentItems: [{ type: 'inputText', text: '{"ok":1}' }], success: true });
  });

  it('compacts, reports per range in request order, and accepts arguments as a JSON string', async () => {
    const out = await json(
      JSON.stringify({
        ranges: [
          { from_message_id: 'msg4', to_message_id: 'msg5', summary: 'done' },
          { from_message_id: 'msg1', to_message_id: 'msg3', summary: 'asked and ran', target_session_id: 'S' },
        ],
      }),
    );
    expect(out).toEqual({
      ranges_compacted: [
        { session_id: 'S', compaction_id: 'cmp1', from_message_id: 'msg4', to_message_id: 'msg5', n_messages_replaced: 2, truncated: false },
        {
          session_id: 'S',
          compaction_id: 'cmp2',
          from_message_id: 'msg1',
          to_message_id: 'msg3',
          n_messages_replaced: 3,
          truncated: false,
          warning: 'range msg1..msg3 holds system, developer or user messages; its summary must preserve active instructions and human intent',
        },
      ],
      n_ranges_compacted: 2,
      n_messages_replaced: 5,
      truncated: false,
      active_compactions: 2,
      total_known_messages_replaced: 5,
      session_id: 'S',
      note: 'The compacted ranges leave the model-visible view from the next call on; the original messages stay in the session log.',
    });
    const merged = await json({ ranges: [{ from_message_id: 'cmp2', to_message_id: 'cmp1', summary: 'all' }] });
    expect(merged).toMatchObject({ active_compactions: 1, total_known_messages_replaced: 5, n_messages_replaced: 5 });
  });

  it('truncates summaries to 2000 code points plus [...truncated] before storing', async () => {
    const long = '🧪'.repeat(2001);
    const out = await json({ ranges: [{ from_message_id: 'msg4', to_message_id: 'msg4', summary: long }] });
    expect(out.truncated).toBe(true);
    const [block] = (await ledger.render('S')).split('\n<aboveturn id="cmp1"/>');
    expect(block!.split('\n\n').at(-1)).toBe(`${'🧪'.repeat(2000)}[...truncated]`);
  });

  it('cuts on a character boundary and stores valid UTF-8 for any text', async () => {
    // Example: 1,999 letters then emoji, so a UTF-16 cut at 2,000 would land inside a pair; and a lone surrogate.
    const cases = [`${'a'.repeat(1999)}${'🧪'.repeat(5)}`, `x\ud800y${'é'.repeat(2100)}`];
    for (const [i, summary] of cases.entries()) {
      const id = i === 0 ? 'msg4' : 'cmp1';
      const out = await json({ ranges: [{ from_message_id: id, to_message_id: id, summary }] });
      expect(out.truncated, JSON.stringify(out)).toBe(true);
    }
    const stored = (await ledger.compactions('S')).map((c) => c.summary);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toBe(`x\ufffdy${'é'.repeat(1997)}[...truncated]`);
    await fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('a', 'é', '🧪', '\ud800', '\udc00', '𝄞')), maxLength: 60 }), fc.nat(70), (text, max) => {
        const { text: out, cut } = cutCodePoints(text, max);
        expect([...out].length).toBeLessThanOrEqual(max);
        expect(out).toBe(out.toWellFormed());
        expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out);
        expect(cut).toBe([...text.toWellFormed()].length > max);
        expect(text.toWellFormed().startsWith(out)).toBe(true);
      }),
    );
  });

  it('checks its arguments in order before the session rules, and prefixes ledger refusals with the session', async () => {
    expect(await json('{not json')).toEqual({ error: expect.stringMatching(/^invalid partial_compact args: /) });
    expect(await json({ ranges: [{ from_message_id: '', to_message_id: '', summary: '' }] })).toEqual({ error: 'provide ranges with at least one complete range' });
    expect(await json({})).toEqual({ error: 'provide ranges with at least one complete range' });
    expect(await json({ ranges: [{ from_message_id: 'msg1', summary: 'x' }, { from_message_id: 'zzz', to_message_id: 'zzz', summary: 'x' }] })).toEqual({
      error: 'each range must include from_message_id, to_message_id, and summary',
    });
    expect(await json({ ranges: [{ from_message_id: 'msg4', to_message_id: 'msg4', summary: 'x', target_session_id: 'S', session_id: 'T' }] })).toEqual({
      error: 'target_session_id and session_id must match when both are given',
    });
    expect(await json({ ranges: [{ from_message_id: 'msg4', to_message_id: 'msg4', summary: 'x', session_id: 'other' }] })).toEqual({
      error: 'partial_compact only compacts the current session (S); omit session selectors',
    });
    expect(await json({ ranges: [{ from_message_id: 'msg2', to_message_id: 'msg2', summary: 'x' }] })).toEqual({
      error: 'session S: range msg2..msg2 splits a tool_use/tool_result group at msg2; extend the range to msg3',
    });
    expect(await ledger.compactions('S')).toEqual([]);
  });
});
