/**
 * Lossless text form of git path bytes ("surrogateescape", PEP 383, the reference's encoding;
 * the BEKO2210/SkillQuarry cordon).
 *
 * Git paths are bytes. Cordon shows them as JavaScript strings: every well-formed UTF-8
 * sequence becomes its character, and every other byte `b` (always ≥ 0x80) becomes the lone
 * surrogate U+DC00+b. No valid UTF-8 decodes to a lone surrogate, so the mapping is reversible.
 * `JSON.stringify` writes lone surrogates as `\udcXX` escapes, so the JSON stays valid and a
 * name such as `invalid-\xff.py` round-trips as `"invalid-\udcff.py"`. Newlines and tabs are
 * ordinary characters (`\n`, `\t` in JSON).
 */

// `ignoreBOM: true` keeps a leading U+FEFF: by default a TextDecoder drops it, so a file named
// "\ufeffa" would come out as "a", and a .gitignore that starts with a BOM would lose it.
import { displayName } from '../output/terminal.js';

let strictDecoder: InstanceType<typeof TextDecoder> | undefined;

/** The strict UTF-8 decoder, made on first use (about 0.1 ms that every fast route paid at start-up). */
function strict(): InstanceType<typeof TextDecoder> {
  return (strictDecoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }));
}

/** Decodes path bytes to their lossless text form. */
export function pathText(bytes: Uint8Array): string {
  try {
    return strict().decode(bytes);
  } catch {
    return decodeEscaping(bytes);
  }
}

/**
 * {@link pathText} of `data[start, end)`, without a Buffer for the span: for git's listings,
 * one call per record. Valid UTF-8 decodes the same either way, and `toString` marks anything
 * else with U+FFFD; only a name holding U+FFFD (rare: a replacement character in a file name)
 * takes the strict route.
 */
export function pathTextAt(data: Buffer, start: number, end: number): string {
  const text = data.toString('utf8', start, end);
  return text.includes('\ufffd') ? pathText(data.subarray(start, end)) : text;
}

/** Inverse of {@link pathText}: the original bytes. */
export function pathBytes(text: string): Buffer {
  if (!/[\udc80-\udcff]/.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let run = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc80 && unit <= 0xdcff && !isLowHalfOfPair(text, i)) {
      if (run) parts.push(Buffer.from(run, 'utf8'));
      run = '';
      parts.push(Buffer.of(unit - 0xdc00));
    } else {
      run += text[i];
    }
  }
  if (run) parts.push(Buffer.from(run, 'utf8'));
  return Buffer.concat(parts);
}

/** True when `text` came from bytes that are not valid UTF-8. */
export function hasEscapedBytes(text: string): boolean {
  return /[\udc80-\udcff]/.test(text);
}

/**
 * A path as a human reads it on one line: as is when every character shows as itself, else
 * JSON-quoted with each unshown character as a `\uXXXX` escape (`"a\nb"`, `"x\udcff"`,
 * `"\ufeffname.txt"`, `"report\u202etxt.exe"`), so no name breaks the output, hides a character
 * or reorders the line. The one terminal escaping of output/terminal.ts ({@link displayName}).
 */
export function displayPath(text: string): string {
  return displayName(text);
}

function isLowHalfOfPair(text: string, i: number): boolean {
  if (i === 0) return false;
  const prev = text.charCodeAt(i - 1);
  return prev >= 0xd800 && prev <= 0xdbff;
}

function decodeEscaping(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const length = wellFormedLength(bytes, i);
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + bytes[i]!);
      i += 1;
    } else {
      out += strict().decode(bytes.subarray(i, i + length));
      i += length;
    }
  }
  return out;
}

/**
 * Length of the well-formed UTF-8 sequence starting at `i` (Unicode 15 Table 3-7), or 0 when
 * the byte at `i` does not start one.
 */
function wellFormedLength(b: Uint8Array, i: number): number {
  const b0 = b[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
