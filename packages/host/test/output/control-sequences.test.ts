import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withoutCsi } from '../../src/output/control-sequences.js';

describe('withoutCsi', () => {
  it('removes colours, cursor moves and private-mode sequences, and nothing else', () => {
    expect(withoutCsi('\x1b[1;31mfailed\x1b[0m')).toBe('failed');
    expect(withoutCsi('a\x1b[2K\x1b[10;5Hb\x1b[?25lc')).toBe('abc');
    // OSC (title, clipboard), a lone ESC and BEL are not CSI: they stay for the renderers to escape.
    expect(withoutCsi('\x1b]52;c;aGk=\x07x')).toBe('\x1b]52;c;aGk=\x07x');
    expect(withoutCsi('esc \x1b alone')).toBe('esc \x1b alone');
    expect(withoutCsi('plain text')).toBe('plain text');
  });

  it('leaves no CSI sequence behind, and text without ESC unchanged', () => {
    const part = fc.oneof(
      fc.string(),
      fc.tuple(fc.stringMatching(/^[0-?]{0,6}$/), fc.stringMatching(/^[ -/]{0,2}$/), fc.stringMatching(/^[@-~]$/)).map(([p, i, f]) => `\x1b[${p}${i}${f}`),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const out = withoutCsi(parts.join(''));
        // fc.string() holds no ESC: every ESC came from a whole sequence, and none is left.
        expect(out).not.toContain('\x1b');
        expect(out).toBe(parts.filter((p) => !p.startsWith('\x1b[')).join(''));
      }),
    );
  });
});
