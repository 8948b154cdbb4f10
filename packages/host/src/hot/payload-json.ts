/**
 * The JSON of hook payloads as agents actually send it: where a document ends on a stream that
 * stays open, and the one kind of invalid JSON agents are seen to write.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Finds the end of one JSON object or array arriving in chunks of UTF-8 bytes, so a payload can
 * be used as soon as it has arrived even when the writer keeps stdin open.
 * Tracks only nesting depth and string/escape state (multi-byte UTF-8 never holds an ASCII byte,
 * so bytes are enough); it does not validate: the caller parses what it says is complete.
 * Leading whitespace and a UTF-8 BOM are skipped; a document that starts with anything other
 * than `{` or `[` (a scalar has no closing byte) is never reported complete.
 * Strings are crossed with `indexOf`, so a multi-megabyte payload costs one native scan.
 */
export class DocumentEnd {
  #depth = 0;
  #started = false;
  #scalar = false;
  #inString = false;
  /** The previous chunk ended on a backslash inside a string: the next byte is escaped. */
  #escape = false;
  #complete = false;
  #endOffset = -1;

  /** True once the first top-level `{…}` or `[…]` has closed. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * Once {@link complete}: the offset, in the chunk that completed the document, just past its
   * closing byte (bytes from there on are not the document's); -1 before.
   */
  get endOffset(): number {
    return this.#endOffset;
  }

  /**
   * Feeds the next chunk (an empty one changes nothing). Returns true when this chunk completes
   * the document (once: later chunks are ignored and return false).
   */
  push(chunk: Uint8Array): boolean {
    const n = chunk.length;
    // An empty chunk must not take the byte an escape left pending by the last chunk waits for.
    if (this.#complete || this.#scalar || n === 0) return false;
    let i = 0;
    // The next quote and backslash at or after `i` (-1: none left in the chunk; -2: not looked for
    // yet), each looked up again only once `i` has passed it: a string of many escapes and no
    // quote (a file's lines as `\n`, text as `\uXXXX`) then costs one scan of the chunk, where a
    // search for the quote after every escape cost one per escape (seconds for a megabyte).
    let quote = -2;
    let backslash = -2;
    if (this.#escape) {
      this.#escape = false;
      i = 1;
    }
    while (i < n) {
      if (this.#inString) {
        if (quote !== -1 && quote < i) quote = chunk.indexOf(QUOTE, i);
        if (backslash !== -1 && backslash < i) backslash = chunk.indexOf(BACKSLASH, i);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          if (backslash === n - 1) {
            this.#escape = true;
            return false;
          }
          i = backslash + 2;
          continue;
        }
        if (quote === -1) return false;
        this.#inString = false;
        i = quote + 1;
        continue;
      }
      const byte = chunk[i]!;
      i++;
      if (!this.#started) {
        // Whitespace and the BOM's bytes (EF BB BF) before the document.
        if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0xef || byte === 0xbb || byte === 0xbf) continue;
        if (byte !== OPEN_BRACE && byte !== OPEN_BRACKET) {
          this.#scalar = true;
          return false;
        }
        this.#started = true;
        this.#depth = 1;
        continue;
      }
      if (byte === QUOTE) this.#inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.#depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        this.#depth--;
        if (this.#depth === 0) {
          this.#complete = true;
          this.#endOffset = i;
          return true;
        }
      }
    }
    return false;
  }
}

// eslint-disable-next-line no-control-regex
const HAS_RAW_CONTROL = /[\u0000-\u001f]/;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

function escapeControl(c: string): string {
  return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every raw U+0000–U+001F inside a string token replaced by its escape, in one pass:
 * a string opens at a quote outside one and closes at the next quote that no backslash escapes
 * (the byte after a backslash is taken as it is, as JSON.parse reads it). Controls outside
 * strings are left. (A regular expression that matched each string token cost one scan to the
 * end of the text per quote once a string was left open, as in a payload cut off mid-string:
 * 200 KB of `\"` took a minute, all of it synchronous, out of reach of the hook's time bound.)
 */
function escapeRawControls(text: string): string {
  const parts: string[] = [];
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!inString) {
      if (c === QUOTE) inString = true;
    } else if (c === BACKSLASH) i++;
    else if (c === QUOTE) inString = false;
    else if (c < 0x20) {
      parts.push(text.slice(from, i), escapeControl(text[i]!));
      from = i + 1;
    }
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}

/**
 * `JSON.parse(text)`, tolerating what agents actually send: Claude Code has
 * been seen to put raw TAB and newline bytes inside JSON strings (a heredoc in
 * `tool_input.command`), which RFC 8259 §7 forbids. When, and only when, the strict parse fails,
 * every raw U+0000–U+001F inside a string token is replaced by its escape and the text is parsed
 * again; the value is then what the agent meant (the TAB is a TAB). Control characters outside
 * strings (other than the JSON whitespace TAB, LF, CR) stay invalid.
 * @throws the strict parse's `SyntaxError` when the repaired text does not parse either.
 */
export function parseAgentJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (strict) {
    if (!HAS_RAW_CONTROL.test(text)) throw strict;
    const repaired = escapeRawControls(text);
    try {
      return JSON.parse(repaired);
    } catch {
      throw strict;
    }
  }
}
