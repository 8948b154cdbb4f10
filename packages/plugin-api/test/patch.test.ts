import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patchHeaders, patchTargets } from '../src/patch/index.js';

// The V4A grammar as Hermes Agent's `patch` tool reads it (tools/patch_parser.py of
// NousResearch/hermes-agent); the Codex grammar has its own tests (plugins/codex/test/patch.test.ts).

describe("patchHeaders, grammar v4a (Hermes Agent's patch mode)", () => {
  it('names every added, updated and deleted file and both ends of a Move File, in order', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/app.py',
      '@@ def main @@',
      ' def main():',
      '-    print("hello")',
      '+    print("bye")',
      '*** Add File: src/new.py',
      '+x = 1',
      '*** Delete File: docs/old.md',
      '*** Move File: src/a.py -> lib/a.py',
      '*** End Patch',
    ].join('\n');
    expect(patchHeaders(patch, 'v4a')).toEqual([
      { op: 'update', path: 'src/app.py' },
      { op: 'add', path: 'src/new.py' },
      { op: 'delete', path: 'docs/old.md' },
      { op: 'move', path: 'src/a.py' },
      { op: 'move', path: 'lib/a.py' },
    ]);
  });

  it('takes markers with no blank after *** or after File:, several blanks between the words, CRLF, and strips the path', () => {
    const patch = '*** Begin Patch\r\n***Update File:src/a.py\r\n+x\r\n***   Add \t File:   src/b.py  \r\n*** Move File:src/c.py->/abs/d.py\r\n*** End Patch\r\n';
    expect(patchTargets(patch, 'v4a')).toEqual(['src/a.py', 'src/b.py', 'src/c.py', '/abs/d.py']);
  });

  it("strips the path as Python's str.strip does (\\x1f and U+0085 too), so a leading control blank cannot hide an absolute path", () => {
    expect(patchTargets('*** Add File: \x1f/etc/cron.d/x\x85\n+x', 'v4a')).toEqual(['/etc/cron.d/x']);
    expect(patchTargets('*** Delete File: \u3000~/.bashrc\u2028', 'v4a')).toEqual(['~/.bashrc']);
  });

  it('splits a move at its first -> that leaves a source', () => {
    expect(patchTargets('*** Move File: a->b->c', 'v4a')).toEqual(['a', 'b->c']);
    // Hermes reads a blank source here (`\\s*` gives the blank back to `(.+?)`) and refuses the patch; the destination still counts.
    expect(patchTargets('*** Move File: ->b', 'v4a')).toEqual(['b']);
    expect(patchTargets('*** Move File:->b', 'v4a')).toEqual([]);
  });

  it('reads a header only at column 0 (an indented one is a context line to Hermes), and not a + or - line that quotes one', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.py\n  *** Add File: docs/x.md\n+*** Delete File: README.md\n-*** Add File: y\n*** End Patch';
    expect(patchTargets(patch, 'v4a')).toEqual(['src/a.py']);
  });

  it('reads leniently where Hermes refuses or ignores: no envelope, a header after *** End Patch, a Codex *** Move to: line', () => {
    expect(patchTargets('*** Add File: src/a.py\n+x', 'v4a')).toEqual(['src/a.py']);
    expect(patchTargets('*** Begin Patch\n*** Add File: src/a.py\n+x\n*** End Patch\n*** Add File: docs/late.md\n+y', 'v4a')).toEqual(['src/a.py', 'docs/late.md']);
    expect(patchTargets('*** Begin Patch\n*** Update File: src/a.py\n*** Move to: docs/a.py\n@@\n-a\n+b\n*** End Patch', 'v4a')).toEqual(['src/a.py', 'docs/a.py']);
  });

  it('leaves out a header with an empty path, and is case-sensitive as Hermes is', () => {
    expect(patchTargets('*** Add File:   \n*** Delete File:\n*** add file: x\n*** Update File: ok', 'v4a')).toEqual(['ok']);
  });

  it('gives nothing for text that is no patch', () => {
    expect(patchTargets('', 'v4a')).toEqual([]);
    expect(patchTargets('hello\n***\n*** Begin Patch\n*** End Patch', 'v4a')).toEqual([]);
  });
});

/** Python's `str.isspace` characters at either end of a string. */
const PY_BLANK_ENDS = /^[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]|[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;

describe('patchHeaders never throws', () => {
  const headerish = fc.array(
    fc.oneof(
      fc.string(),
      fc.constantFrom('*** Begin Patch', '*** End Patch', '*** End of File', '@@', '@@ x @@', '+', '-', ' ', '<<EOF', 'EOF', '\r'),
      fc.tuple(fc.constantFrom('*** Add File: ', '*** Update File: ', '*** Delete File: ', '*** Move to: ', '*** Move File: ', '***Update\tFile:'), fc.string()).map(([m, p]) => m + p),
    ),
    { maxLength: 30 },
  ).map((lines) => lines.join('\n'));

  it.each(['codex', 'v4a'] as const)('%s: on arbitrary text and on patch-shaped text', (grammar) => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), headerish), (text) => {
        const headers = patchHeaders(text, grammar);
        expect(Array.isArray(headers)).toBe(true);
        for (const h of headers) expect(typeof h.path).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });

  it('v4a: every path it names is non-empty and stripped', () => {
    fc.assert(
      fc.property(headerish, (text) => {
        for (const h of patchHeaders(text, 'v4a')) {
          expect(h.path).not.toBe('');
          expect(h.path).not.toMatch(PY_BLANK_ENDS);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
