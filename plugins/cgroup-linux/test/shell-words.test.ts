import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shellWords } from '../src/guard/shell-words.js';

// The guard leaves a command alone when it already runs under `cordon control run`, judged by
// shellWords: a command it calls simple must be, for the shell, that one command with those words.

/** What bash runs for `w <text>`: the words of each call of the function `w`, and whatever else it printed. */
function bashRuns(text: string): { calls: string[][]; stderr: string } {
  const script = `set -f; w() { for a in "$@"; do printf '%s\\0' "$a"; done; printf '\\1'; }; w ${text}`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8' });
  const calls = r.stdout.split('\u0001').slice(0, -1).map((call) => call.split('\u0000').slice(0, -1));
  return { calls, stderr: r.stderr };
}

describe('shellWords', () => {
  it('a comment ends at the end of its line: what follows the newline is another command', () => {
    // bash runs `make -j8` after the guarded command: not one simple command.
    expect(shellWords('cordon control run -- true # note\nmake -j8').simple).toBe(false);
    expect(shellWords('cordon control run -- true # note')).toEqual({ words: ['cordon', 'control', 'run', '--', 'true'], simple: true });
  });

  it('a backslash-newline (line continuation) adds no empty word', () => {
    expect(shellWords('a \\\n b')).toEqual({ words: ['a', 'b'], simple: true });
    expect(shellWords('a\\\nb')).toEqual({ words: ['ab'], simple: true });
    expect(shellWords('a\\')).toEqual({ words: ['a\\'], simple: true });
  });

  it('a command it calls simple is, for bash, one call with exactly its words', () => {
    const piece = fc.constantFrom('a', 'b', 'é', ' ', '\t', '\\', "'", '"', '#', '\n', '\\\n', ';', 'w', '$(', '`', "\\'", '\\"', '\\#');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const text = pieces.join('');
        // A backslash that ends the text stands for itself in dash and, mostly, in bash; bash drops
        // it after a quote that spans lines, a quirk no command of an agent relies on.
        if (/(?:^|[^\\])(?:\\\\)*\\$/.test(text)) return;
        const parsed = shellWords(`w ${text}`);
        if (!parsed.simple) return;
        const bash = bashRuns(text);
        expect(bash.stderr, JSON.stringify(text)).toBe('');
        expect(bash.calls, JSON.stringify(text)).toEqual([parsed.words.slice(1)]);
        expect(parsed.words[0]).toBe('w');
      }),
      { numRuns: 200 },
    );
  });
});
