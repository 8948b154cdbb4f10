import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PayloadReducer, REDUCE_LIMITS } from '../../src/hot/payload-reduce.js';

// The reduced form of an oversized hook payload: short values exactly as JSON.parse reads them,
// long strings as their skeletons, in chunks cut anywhere.

/** Feeds `text` in chunks of `size` bytes and returns the result. */
function reduce(text: string | Buffer, size = 7) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const reducer = new PayloadReducer();
  for (let i = 0; i < bytes.length; i += size) reducer.push(bytes.subarray(i, i + size));
  return reducer.result();
}

describe('PayloadReducer', () => {
  it('reads any small JSON object as JSON.parse does, cut into chunks anywhere', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer({ min: 1, max: 64 }), (value, size) => {
        const text = JSON.stringify(value);
        const r = reduce(text, size);
        expect(r.value).toStrictEqual(JSON.parse(text));
        expect(r.cuts).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('tolerates a BOM, white space and raw control characters inside strings (as agents send them)', () => {
    const r = reduce('\ufeff { "tool_input" : { "command" : "cat <<EOF\n\ta\nEOF" } , "n": -1.5e3, "t": true, "z": null, "a": [ ] }\n');
    expect(r.value).toEqual({ tool_input: { command: 'cat <<EOF\n\ta\nEOF' }, n: -1500, t: true, z: null, a: [] });
  });

  it('keeps a long string as its skeleton: the header lines of a patch, not the content lines of its hunks', () => {
    const body = Array.from({ length: 20_000 }, (_, i) => `+line ${i} of the new file`).join('\n');
    const patch = `*** Begin Patch\n*** Add File: a/new.txt\n${body}\n*** Update File: b.txt\n*** Move to: c.txt\n@@ def f\n-old\n+new\n context\n  *** Delete File: d.txt\n*** End Patch\n`;
    const r = reduce(JSON.stringify({ tool_input: { command: patch }, small: 'x' }), 65_536);
    expect((r.value as any).tool_input.command).toBe('*** Begin Patch\n*** Add File: a/new.txt\n*** Update File: b.txt\n*** Move to: c.txt\n*** End Patch');
    expect((r.value as any).small).toBe('x');
    expect(r.cuts).toEqual([]);
  });

  it('splits lines at an escaped \\u000a too, and keeps a shell heredoc\'s first line', () => {
    const script = `cd 'sub dir' && apply_patch <<'EOF'\u000a*** Begin Patch\n*** Add File: x\n${'+y\n'.repeat(40_000)}*** End Patch\nEOF\n`;
    const text = JSON.stringify({ command: script }).replace(/\\n\*\*\* Begin/, '\\u000a*** Begin');
    expect((reduce(text, 1000).value as any).command).toBe("cd 'sub dir' && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x\n*** End Patch\nEOF");
  });

  it('marks where a skeleton had to drop a line it would keep (too long), and the skeleton past its bound', () => {
    const long = 'x'.repeat(REDUCE_LIMITS.line + 1);
    const r = reduce(JSON.stringify({ tool_input: { content: `${long}\n${'+'.repeat(REDUCE_LIMITS.wholeString)}` }, list: ['a', 'b'] }), 4096);
    expect((r.value as any).tool_input.content).toBe('');
    expect(r.cuts).toEqual([['tool_input', 'content']]);
    const many = Array.from({ length: 30_000 }, (_, i) => `line ${i}`).join('\n');
    const r2 = reduce(JSON.stringify({ a: [1, many] }), 100_000);
    expect(r2.cuts).toEqual([['a', 1]]);
    expect(Buffer.byteLength((r2.value as any).a[1])).toBeLessThanOrEqual(REDUCE_LIMITS.skeleton);
  });

  it('keeps a key named __proto__ as an own member', () => {
    const r = reduce('{"__proto__": {"x": 1}, "y": 2}');
    expect(Object.hasOwn(r.value as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
  });

  it.each([
    ['not JSON at all', 'hello world'],
    ['zero bytes', '\u0000\u0000\u0000'],
    ['an unclosed object', '{"a": "b"'],
    ['a trailing comma', '{"a": 1,}'],
    ['a mismatched bracket', '{"a": [1}'],
    ['an array, not an object', '[1, 2]'],
    ['a bare number', '12'],
  ])('%s: a SyntaxError', (_label, text) => {
    expect(() => reduce(text)).toThrow(SyntaxError);
  });

  // Found after a hostile-input probe: a bad literal's error was V8's, which quotes up to ten
  // characters of it, and an unquoted `sk-proj-…` is made of literal bytes; the hook logs the
  // message of an oversized payload that does not reduce.
  it('a malformed literal: the error quotes none of it', () => {
    for (const literal of ['sk-proj-abcdefghijklmnop0123456789', 'tru', 'nulx', '1.2.3', '--1', 'ghp']) {
      let message = '';
      try {
        reduce(`{"token": ${literal}}`);
      } catch (error) {
        expect(error).toBeInstanceOf(SyntaxError);
        message = (error as Error).message;
      }
      expect(message).toBe('a JSON number or literal in the payload is malformed');
    }
  });

  it('no error message holds a run of the input: any bytes after a key', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9.+-]{4,40}$/), (tail) => {
        try {
          reduce(`{"k": ${tail}}`);
        } catch (error) {
          expect((error as Error).message).not.toContain(tail.slice(0, 4));
        }
      }),
    );
  });
});

describe('PayloadReducer skeletons', () => {
  /** The skeleton of `text` as specified: its non-empty lines but the hunk content lines after the first (no line here reaches a bound). */
  const skeleton = (text: string) =>
    text
      .split('\n')
      .filter((line, i) => line !== '' && (i === 0 || !/^(?:\+|-| |@@)/.test(line)))
      .join('\n');
  const line = fc.oneof(fc.constantFrom('*** Add File: a b', '+x', '-y', ' ctx', '@@ f', '@x', '', 'EOF', '\t*** Update File: q', 'é "q" \\ \u0001'), fc.string({ maxLength: 40 }));

  /** `{"s": text}` as JSON, the first two characters of each line written as `\uXXXX` escapes when `escapeHeads` (as a producer that escapes more than it must may send them). */
  const encode = (text: string, escapeHeads: boolean) => {
    if (!escapeHeads) return JSON.stringify({ s: text });
    const escape = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
    const lines = text.split('\n').map((l) => [...l.slice(0, 2)].map(escape).join('') + JSON.stringify(l.slice(2)).slice(1, -1));
    return `{"s":"${lines.join('\\n')}"}`;
  };

  it('equals the specified skeleton for long strings of any lines, escaped or not, cut into chunks anywhere', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 4096 }), fc.boolean(), (lines, repeat, size, escapeHeads) => {
        const text = `${lines.join('\n')}\n`.repeat(Math.max(1, Math.ceil((REDUCE_LIMITS.wholeString + 1) / (lines.join('\n').length + 1))) + (repeat % 3));
        const expected = skeleton(text);
        fc.pre(Buffer.byteLength(expected) < REDUCE_LIMITS.skeleton / 4);
        const json = encode(text, escapeHeads);
        expect(JSON.parse(json)).toEqual({ s: text });
        const r = reduce(json, size);
        expect((r.value as any).s).toBe(expected);
        expect(r.cuts).toEqual([]);
      }),
      { numRuns: 80 },
    );
  });

  // Found by the property above in CI: a one-character line `@` read the second byte of the line before it.
  it.each([
    ['a line `@` after a hunk header', ['*** Update File: a', '@@ f', '@', 'tail'], ['*** Update File: a', '@', 'tail']],
    ['a line `@x` after a hunk header', ['*** Update File: a', '@@ f', '@x'], ['*** Update File: a', '@x']],
    ['escaped heads: `\\u002b` and `\\u0040\\u0040` are content lines', ['h', '\\u002bx', '\\u0040\\u0040 g', '\\u0040y', '\\tz'], ['h', '@y', '\tz']],
  ])('%s', (_label, bodyLines, expected) => {
    const body = `${bodyLines.join('\\n')}\\n`.repeat(Math.ceil((REDUCE_LIMITS.wholeString + 1) / bodyLines.join('\\n').length));
    const r = reduce(`{"s":"${body}"}`, 3);
    const kept = (r.value as any).s.split('\n');
    expect(kept.slice(0, expected.length)).toEqual(expected);
  });
});
