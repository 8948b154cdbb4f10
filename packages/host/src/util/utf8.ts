import { isUtf8 } from 'node:buffer';

/**
 * The offset of the first byte of `bytes` that does not belong to well-formed UTF-8 (RFC 3629 §4:
 * no overlong forms, no surrogates, nothing above U+10FFFF, no sequence cut short), or -1 when
 * all of it is UTF-8. Node's `buffer.isUtf8` answers the common case at once; the walk runs only
 * for a text that is not, to say where.
 */
export function firstNonUtf8(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const [length, low, high] = b < 0x80 ? [1, 0, 0] : b >= 0xc2 && b <= 0xdf ? [2, 0x80, 0xbf] : b === 0xe0 ? [3, 0xa0, 0xbf] : b === 0xed ? [3, 0x80, 0x9f] : b >= 0xe1 && b <= 0xef ? [3, 0x80, 0xbf] : b === 0xf0 ? [4, 0x90, 0xbf] : b === 0xf4 ? [4, 0x80, 0x8f] : b >= 0xf1 && b <= 0xf3 ? [4, 0x80, 0xbf] : [0, 0, 0];
    if (length === 0 || i + length > bytes.length) return i;
    // The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF.
    if (length > 1 && (bytes[i + 1]! < low || bytes[i + 1]! > high)) return i;
    for (let k = 2; k < length; k++) if (bytes[i + k]! < 0x80 || bytes[i + k]! > 0xbf) return i;
    i += length;
  }
  return -1;
}
