/**
 * Text cuts that never split a character: every place cordon shortens text (marker commands and
 * errors, reduce output, envelope excerpts, attempt records, ledger summaries) goes through
 * these, so what it writes is always valid UTF-8 (no lone UTF-16 surrogate can appear).
 */

/**
 * `text` cut to at most `maxUnits` UTF-16 code units (JavaScript string length), on a code point
 * boundary: a surrogate pair is kept whole or dropped whole. Lone surrogates already in `text`
 * become U+FFFD (`String.prototype.toWellFormed`), so the result always encodes to valid UTF-8.
 * @param maxUnits a non-negative integer.
 */
export function cutText(text: string, maxUnits: number): string {
  let out = text.length <= maxUnits ? text : text.slice(0, maxUnits);
  if (out.length < text.length && out.length > 0) {
    const last = out.charCodeAt(out.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1);
  }
  return wellFormed(out);
}

/**
 * `text` cut so that its UTF-8 encoding is at most `maxBytes` bytes, on a code point boundary;
 * lone surrogates become U+FFFD first.
 */
export function cutUtf8(text: string, maxBytes: number): string {
  const clean = wellFormed(text);
  if (Buffer.byteLength(clean, 'utf8') <= maxBytes) return clean;
  const bytes = Buffer.from(clean, 'utf8');
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/** `text` with every lone surrogate replaced by U+FFFD (valid for UTF-8 encoding). */
export function wellFormed(text: string): string {
  const s = text as string & { toWellFormed?: () => string };
  if (typeof s.toWellFormed === 'function') return s.toWellFormed();
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/**
 * The last at most `maxUnits` UTF-16 code units of `text`, starting on a code point boundary
 * (a surrogate pair at the cut is dropped whole); lone surrogates become U+FFFD.
 */
export function cutTextEnd(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return wellFormed(text);
  let out = maxUnits <= 0 ? '' : text.slice(-maxUnits);
  const first = out.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) out = out.slice(1);
  return wellFormed(out);
}

/**
 * The first at most `maxBytes` bytes of UTF-8 `bytes`, cut back to the start of a character, as
 * a string (bytes that were already invalid decode to U+FFFD, as `Buffer#toString` does).
 */
export function cutUtf8Bytes(bytes: Uint8Array, maxBytes: number): string {
  let end = Math.min(bytes.length, maxBytes);
  if (end < bytes.length) {
    const start = end;
    while (end > 0 && (bytes[end]! & 0xc0) === 0x80 && start - end < 3) end--;
    if ((bytes[end]! & 0xc0) === 0x80) end = start; // not UTF-8 here: cut where asked
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, end).toString('utf8');
}

/**
 * `text` cut to at most `maxPoints` Unicode code points (a surrogate pair counts once), with
 * lone surrogates replaced by U+FFFD first; `cut` tells whether anything was dropped. For limits
 * stated in characters, as Codex's (Rust) summary limit is (the Rust pcodx, SichangHe/partial_compact_codex).
 * @param maxPoints a non-negative integer.
 */
export function cutCodePoints(text: string, maxPoints: number): { text: string; cut: boolean } {
  const clean = wellFormed(text);
  if (clean.length <= maxPoints) return { text: clean, cut: false };
  let units = 0;
  for (let points = 0; points < maxPoints && units < clean.length; points++) {
    const code = clean.charCodeAt(units);
    units += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  return units >= clean.length ? { text: clean, cut: false } : { text: clean.slice(0, units), cut: true };
}

/**
 * The last at most `maxBytes` bytes of UTF-8 `bytes`, starting at the start of a character, as a
 * string (bytes that were already invalid decode to U+FFFD, as `Buffer#toString` does).
 */
export function cutUtf8BytesEnd(bytes: Uint8Array, maxBytes: number): string {
  let start = Math.max(0, bytes.length - maxBytes);
  if (start > 0) {
    const first = start;
    while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80 && start - first < 3) start++;
    if (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start = first; // not UTF-8 here: cut where asked
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.length - start).toString('utf8');
}

/**
 * `text` cut to at most about `maxUnits` UTF-16 code units by leaving out its middle: the first
 * quarter and the last three quarters of the budget are kept (the end of a test runner's output
 * holds its summary), joined by `marker`, each cut on a code point boundary. Text that fits is
 * returned whole (lone surrogates as U+FFFD either way).
 */
export function cutTextMiddle(text: string, maxUnits: number, marker = '\n…\n'): string {
  if (text.length <= maxUnits) return wellFormed(text);
  const budget = Math.max(0, maxUnits - marker.length);
  const head = Math.floor(budget / 4);
  return `${cutText(text, head)}${marker}${cutTextEnd(text, budget - head)}`;
}
