import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/envelope/state/canonical-json.js';
import { displayPath, pathBytes, pathText } from '../../src/envelope/path-text.js';

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

  it('shows control characters and escaped bytes JSON-quoted on one line', () => {
    expect(displayPath('src/a.py')).toBe('src/a.py');
    expect(displayPath('src/line\nbreak')).toBe('"src/line\\nbreak"');
    expect(displayPath('x\udcff')).toBe('"x\\udcff"');
  });
});
