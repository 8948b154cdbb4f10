import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/envelope/state/canonical-json.js';
import { displayPath, pathBytes, pathText, pathTextAt } from '../../src/envelope/path-text.js';

describe('lossless path text (surrogateescape)', () => {
  it('round-trips any byte string', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(pathBytes(pathText(bytes)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });

  it('round-trips through JSON, including canonical JSON', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 32 }), (bytes) => {
        const text = pathText(bytes);
        expect(pathBytes(JSON.parse(JSON.stringify({ p: text })).p).equals(Buffer.from(bytes))).toBe(true);
        expect(pathBytes(JSON.parse(canonicalJson({ p: text })).p).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it('keeps valid UTF-8 as text and escapes each invalid byte as U+DCxx', () => {
    expect(pathText(Buffer.from('src/é.py'))).toBe('src/é.py');
    expect(pathText(Buffer.from([0x61, 0xff, 0x62]))).toBe('a\udcffb');
    // An overlong encoding and a UTF-8-encoded surrogate are not well-formed: byte by byte.
    expect(pathText(Buffer.from([0xc0, 0xaf]))).toBe('\udcc0\udcaf');
    expect(pathText(Buffer.from([0xed, 0xb3, 0xbf]))).toBe('\udced\udcb3\udcbf');
    expect(JSON.stringify('invalid-' + pathText(Buffer.from([0xff])) + '.py')).toBe('"invalid-\\udcff.py"');
    expect(canonicalJson({ p: 'line\nbreak\tname-é' })).toBe('{"p":"line\\nbreak\\tname-\\u00e9"}\n');
  });

  it('keeps a leading byte order mark (a name or a .gitignore that starts with U+FEFF)', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf, 0x61]);
    expect(pathText(bom)).toBe('\ufeffa');
    expect(pathBytes(pathText(bom)).equals(bom)).toBe(true);
    expect(pathText(Buffer.from([0xef, 0xbb, 0xbf, 0xff]))).toBe('\ufeff\udcff');
    expect(pathTextAt(Buffer.concat([Buffer.from('x\0'), bom]), 2, 6)).toBe('\ufeffa');
  });

  it('pathTextAt of a span is pathText of its bytes, U+FFFD in a name included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 48 }), fc.nat(8), fc.nat(8), (bytes, before, after) => {
        const data = Buffer.concat([Buffer.alloc(before, 0xff), Buffer.from(bytes), Buffer.alloc(after, 0xc3)]);
        expect(pathTextAt(data, before, before + bytes.length)).toBe(pathText(bytes));
      }),
      { numRuns: 20_000 },
    );
    const replacement = Buffer.from('a\ufffdb');
    expect(pathTextAt(replacement, 0, replacement.length)).toBe('a\ufffdb');
    expect(pathTextAt(Buffer.from([0x61, 0xef, 0xbf, 0xbd, 0xff]), 0, 5)).toBe('a\ufffd\udcff');
  });

  it('shows control characters and escaped bytes JSON-quoted on one line', () => {
    expect(displayPath('src/a.py')).toBe('src/a.py');
    expect(displayPath('src/line\nbreak')).toBe('"src/line\\nbreak"');
    expect(displayPath('x\udcff')).toBe('"x\\udcff"');
  });

  it('quotes names holding characters a terminal does not show as themselves, escaping each', () => {
    // A byte order mark and a zero-width space are invisible; U+202E shows `report\u202etxt.exe`
    // as `reportexe.txt`; a no-break space looks like a space; tag characters are invisible.
    expect(displayPath('\ufeffname.txt')).toBe('"\\ufeffname.txt"');
    expect(displayPath('a\u200bb')).toBe('"a\\u200bb"');
    expect(displayPath('report\u202etxt.exe')).toBe('"report\\u202etxt.exe"');
    expect(displayPath('a\u2066b\u2069')).toBe('"a\\u2066b\\u2069"');
    expect(displayPath('a\u00a0b')).toBe('"a\\u00a0b"');
    expect(displayPath('del\u007f\u0085')).toBe('"del\\u007f\\u0085"');
    expect(displayPath('line\u2028sep')).toBe('"line\\u2028sep"');
    expect(displayPath('x\u{e0041}y')).toBe('"x\\udb40\\udc41y"');
    expect(displayPath('say "hi"')).toBe('"say \\"hi\\""');
    // What shows as itself stays as is: letters of any script, emoji, spaces, backslashes.
    for (const plain of ['src/é.py', 'docs/日本語.md', '😀.txt', 'a b.txt', 'a\\b', '-x']) expect(displayPath(plain)).toBe(plain);
  });

  it('a quoted name parses back to the name, and holds nothing a terminal would not show', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), (name) => {
        const shown = displayPath(name);
        if (shown === name) return;
        expect(JSON.parse(shown)).toBe(name);
        expect(shown.slice(1, -1).replace(/\\"/g, '')).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}"]|[^\S ]/u);
      }),
      { numRuns: 20_000 },
    );
  });
});
