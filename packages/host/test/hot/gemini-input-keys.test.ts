import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CordonHost } from '../../src/bus/host.js';
import { handleHookPayload } from '../../src/hot/handle.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { pairCalls } from '../../src/telemetry/reduce/pair.js';
import { hostWithDialects, tempDir } from './support.js';

// Issue 28: a Gemini `tool_input` that is not an object (a string, an array, null, or missing)
// gets a key hashed from the value actually sent, so different calls never share a key; marker
// lines without a usable `ts` are bad lines, not unpaired starts or orphan ends.

let data: { dir: string; cleanup: () => void };
let host: CordonHost;
beforeAll(async () => {
  data = tempDir('cordon-gemini-keys-');
  host = await hostWithDialects(data.dir);
});
afterAll(() => data.cleanup());

const payload = (event: 'BeforeTool' | 'AfterTool', session: string, input: unknown, present = true): Record<string, unknown> => ({
  hook_event_name: event,
  session_id: session,
  tool_name: 'run_shell_command',
  ...(present ? { tool_input: input } : {}),
  ...(event === 'AfterTool' ? { tool_response: { llmContent: 'done' } } : {}),
});

describe('Gemini call keys for inputs that are not objects', () => {
  const inputs: Array<[string, unknown, boolean]> = [
    ['a string', 'ls -la', true],
    ['another string', 'npm test', true],
    ['an array', ['ls', '-la'], true],
    ['another array', ['npm', 'test'], true],
    ['null', null, true],
    ['a missing input', undefined, false],
    ['an empty object', {}, true],
    ['a number', 42, true],
  ];

  it('gives each a key of its own, and its after event the same key', async () => {
    const session = 'gemini-raw-inputs';
    const starts: string[] = [];
    for (const [, input, present] of inputs) {
      const o = await handleHookPayload(payload('BeforeTool', session, input, present), { host, agent: 'gemini', env: {} });
      starts.push(o.marker!.call_key!);
    }
    expect(new Set(starts).size).toBe(inputs.length);
    // The ends arrive in reverse order and still pair with their own starts.
    const ends = new Map<string, string>();
    for (const [name, input, present] of [...inputs].reverse()) {
      const o = await handleHookPayload(payload('AfterTool', session, input, present), { host, agent: 'gemini', env: {} });
      ends.set(name, o.marker!.call_key!);
    }
    inputs.forEach(([name], i) => expect(ends.get(name), name).toBe(starts[i]));
    const { markers } = readMarkers(join(data.dir, 'runs', session, 'markers.jsonl'));
    const pairing = pairCalls(markers);
    expect(pairing.calls).toHaveLength(inputs.length);
    expect(pairing.unpairedStarts).toHaveLength(0);
    expect(pairing.orphanEnds).toHaveLength(0);
    // The command summary shows the value sent, not `{}`.
    expect(markers.find((m) => m.call_key === starts[0])!.command).toBe('"ls -la"');
    expect(markers.find((m) => m.call_key === starts[2])!.command).toBe('["ls","-la"]');
  });

  it('keeps the first-in-first-out ordinal for the same string sent twice', async () => {
    const session = 'gemini-raw-twice';
    const a = await handleHookPayload(payload('BeforeTool', session, 'make'), { host, agent: 'gemini', env: {} });
    const b = await handleHookPayload(payload('BeforeTool', session, 'make'), { host, agent: 'gemini', env: {} });
    expect(a.marker!.call_key).toMatch(/\.0$/);
    expect(b.marker!.call_key).toBe(a.marker!.call_key!.replace(/\.0$/, '.1'));
  });
});

describe('marker lines without a usable ts', () => {
  it('are counted as bad lines and left out of pairing', () => {
    const dir = tempDir('cordon-bad-ts-');
    try {
      const file = join(dir.dir, 'markers.jsonl');
      const good = (event: string, ts: number, key: string) => JSON.stringify({ v: 1, event, ts, session_id: 's', agent: 'gemini', native_event: 'x', call_key: key });
      writeFileSync(file, `${good('tool_start', 1000, 'a')}\n${good('tool_end', 2000, 'a')}\n`);
      for (const ts of [null, '1500', 'NaN', undefined, true]) {
        const line = JSON.parse(good('tool_start', 0, 'b')) as Record<string, unknown>;
        if (ts === undefined) delete line.ts;
        else line.ts = ts;
        appendFileSync(file, `${JSON.stringify(line)}\n`);
      }
      appendFileSync(file, `${JSON.stringify({ ...(JSON.parse(good('tool_end', 0, 'c')) as object), ts: 'later' })}\n`);
      const { markers, badLines } = readMarkers(file);
      expect(badLines).toEqual([3, 4, 5, 6, 7, 8]);
      const pairing = pairCalls(markers);
      expect(pairing.calls).toHaveLength(1);
      expect(pairing.unpairedStarts).toHaveLength(0);
      expect(pairing.orphanEnds).toHaveLength(0);
    } finally {
      dir.cleanup();
    }
  });
});
