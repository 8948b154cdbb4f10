import { parseAgentJson } from './payload-json.js';

/**
 * Bounds of {@link PayloadReducer}, bytes or counts. Together they cap what an oversized payload
 * keeps at a few MiB whatever its size.
 */
export const REDUCE_LIMITS = Object.freeze({
  /** A string of at most this many bytes (as sent, escapes included) is kept whole. */
  wholeString: 64 * 1024,
  /** Longest line of a longer string that its skeleton keeps. */
  line: 4096,
  /** Most bytes one string's skeleton keeps. */
  skeleton: 256 * 1024,
  /** Most string bytes the whole reduced payload keeps. */
  total: 4 * 1024 * 1024,
  /** Most values (objects, arrays, scalars) kept; the rest are read and dropped. */
  values: 100_000,
  /** Deepest nesting kept. */
  depth: 64,
  /** Most cut places listed; past it the payload counts as cut everywhere ({@link ReducedPayload.cutEverywhere}). */
  cuts: 100,
});

/** Where a value sits in the payload: object keys and array indexes from the top. */
export type ValuePath = readonly (string | number)[];

/** What {@link PayloadReducer} makes of a payload too large to parse whole. */
export interface ReducedPayload {
  /** The payload with every long string replaced by its skeleton (see {@link PayloadReducer}). */
  readonly value: unknown;
  /**
   * The places where the reduced payload lost text a skeleton keeps (a header-like line too long,
   * a skeleton or the whole payload over its bound) or dropped a value (too deep, too many):
   * what is there now may not be all that counted.
   */
  readonly cuts: readonly ValuePath[];
  /** More places were cut than {@link REDUCE_LIMITS.cuts}: any value may be incomplete. */
  readonly cutEverywhere: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LF = 0x0a;
/** The character each one-letter JSON escape stands for, by the letter's byte (RFC 8259 §7); `\n` ends a line instead. */
const SIMPLE_ESCAPES: Readonly<Record<number, number>> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x72: 0x0d, 0x74: 0x09 };

/** One open object or array. */
interface Frame {
  readonly container: Record<string, unknown> | unknown[] | undefined;
  /** The key of the member being read (objects), once read; `undefined` for a dropped member. */
  key: string | undefined;
  /** A key too long to keep was read: the member is read and dropped. */
  dropMember: boolean;
  index: number;
}

type Mode = 'start' | 'value' | 'key-or-close' | 'key' | 'colon' | 'after' | 'string' | 'literal' | 'done';

/**
 * Reads one JSON object arriving in UTF-8 chunks of any size, keeping a bounded view of it: the
 * shape and every scalar, and each string of at most {@link REDUCE_LIMITS.wholeString} bytes
 * whole. A longer string (a file's content, a patch, a heredoc script) is kept as its
 * **skeleton**: its lines that are not the content lines of a diff hunk (those beginning with
 * `+`, `-`, a space, or `@@`), each at most {@link REDUCE_LIMITS.line} bytes, joined by `\n`.
 * So a patch keeps its `*** Begin Patch` / `*** Add File: …` / `*** Move to: …` headers (the
 * Codex apply_patch format) and a shell script its command lines and heredoc markers, while the
 * bulk of any text is counted and dropped. A line is split at `\n`, whether escaped or raw.
 *
 * Tolerates raw control characters inside strings as {@link parseAgentJson} does, and a leading
 * BOM. Memory stays within the {@link REDUCE_LIMITS} bounds. Not a validator beyond what it must
 * read: a syntax error throws `SyntaxError` from {@link push}.
 */
export class PayloadReducer {
  #mode: Mode = 'start';
  readonly #stack: Frame[] = [];
  #root: unknown;
  #values = 0;
  #totalKept = 0;
  readonly #cuts: ValuePath[] = [];
  #cutEverywhere = false;
  // The open string.
  #stringIsKey = false;
  readonly #whole = Buffer.allocUnsafe(REDUCE_LIMITS.wholeString);
  #wholeLength = 0;
  #wholeOver = false;
  readonly #line = Buffer.allocUnsafe(REDUCE_LIMITS.line);
  #lineLength = 0;
  #lineOver = false;
  // The line's first two characters as decoded (an escape counts as the character it stands for), -1 until read.
  #lineHead0 = -1;
  #lineHead1 = -1;
  #firstLine = true;
  #skeleton: string[] = [];
  #skeletonBytes = 0;
  #stringCut = false;
  /** Where an escape being read is: 0 outside one, 1 after its backslash, 2–5 after `\u` and that many hex digits less 2. */
  #escape = 0;
  /** The hex digits of a `\u` escape read so far, as a number. */
  #escapeCode = 0;
  #literal = '';

  /** True once the top-level value has closed. */
  get complete(): boolean {
    return this.#mode === 'done';
  }

  /** Feeds the next chunk; bytes after the document are ignored. @throws SyntaxError on malformed JSON. */
  push(chunk: Uint8Array): void {
    const n = chunk.length;
    for (let i = 0; i < n && this.#mode !== 'done'; i++) {
      const byte = chunk[i]!;
      if (this.#mode === 'string') {
        if (this.#wholeOver && this.#escape === 0 && byte !== QUOTE && byte !== BACKSLASH && byte !== LF) {
          // The bulk of a long string: a run of plain bytes goes to the line at once.
          let end = i + 1;
          while (end < n) {
            const b = chunk[end]!;
            if (b === QUOTE || b === BACKSLASH || b === LF) break;
            end++;
          }
          this.#lineRun(chunk, i, end);
          i = end - 1;
          continue;
        }
        this.#stringByte(byte);
        continue;
      }
      if (this.#mode === 'literal') {
        if (isLiteralByte(byte)) {
          if (this.#literal.length > 64) throw new SyntaxError('a JSON number or literal is too long');
          this.#literal += String.fromCharCode(byte);
          continue;
        }
        this.#endLiteral();
      }
      this.#structuralByte(byte);
    }
  }

  /** The reduced payload. @throws SyntaxError when the document is incomplete or not an object. */
  result(): ReducedPayload {
    if (this.#mode === 'literal' && this.#stack.length === 0) this.#endLiteral();
    if (this.#mode !== 'done') throw new SyntaxError('the JSON document is incomplete');
    if (!this.#root || typeof this.#root !== 'object' || Array.isArray(this.#root)) throw new SyntaxError('the payload is not a JSON object');
    return { value: this.#root, cuts: this.#cuts, cutEverywhere: this.#cutEverywhere };
  }

  #structuralByte(byte: number): void {
    if (byte === 0x20 || byte === 0x09 || byte === LF || byte === 0x0d) return;
    switch (this.#mode) {
      case 'start':
        if (byte === 0xef || byte === 0xbb || byte === 0xbf) return;
        this.#value(byte);
        return;
      case 'value':
        this.#value(byte);
        return;
      case 'key-or-close':
        if (byte === 0x7d) return this.#close(0x7d);
        if (byte !== QUOTE) throw unexpected(byte);
        return this.#openString(true);
      case 'key':
        if (byte !== QUOTE) throw unexpected(byte);
        return this.#openString(true);
      case 'colon':
        if (byte !== 0x3a) throw unexpected(byte);
        this.#mode = 'value';
        return;
      case 'after': {
        const frame = this.#stack[this.#stack.length - 1]!;
        if (byte === 0x2c) {
          this.#mode = frame.key === ARRAY ? 'value' : 'key';
          return;
        }
        if (byte === 0x7d || byte === 0x5d) return this.#close(byte);
        throw unexpected(byte);
      }
      default:
        throw unexpected(byte);
    }
  }

  /** The first byte of a value. */
  #value(byte: number): void {
    if (byte === 0x7b || byte === 0x5b) {
      const isObject = byte === 0x7b;
      const keep = this.#keepingHere() && this.#stack.length < REDUCE_LIMITS.depth && this.#countValue();
      if (!keep && this.#keepingHere()) this.#cut([]);
      const container = keep ? (isObject ? {} : []) : undefined;
      if (container !== undefined) this.#place(container);
      this.#stack.push({ container, key: isObject ? undefined : ARRAY, dropMember: false, index: 0 });
      // An array's `]` right away is read in 'value' mode.
      this.#mode = isObject ? 'key-or-close' : 'value';
      return;
    }
    if (byte === 0x5d && this.#mode === 'value') {
      const frame = this.#stack[this.#stack.length - 1];
      if (frame && frame.key === ARRAY && frame.index === 0) return this.#close(0x5d);
      throw unexpected(byte);
    }
    if (byte === QUOTE) return this.#openString(false);
    if (isLiteralByte(byte)) {
      this.#literal = String.fromCharCode(byte);
      this.#mode = 'literal';
      return;
    }
    throw unexpected(byte);
  }

  #close(byte: number): void {
    const frame = this.#stack.pop()!;
    if ((frame.key === ARRAY) !== (byte === 0x5d)) throw unexpected(byte);
    this.#afterValue();
  }

  /** A value has ended: the parent's next slot, or the document's end. */
  #afterValue(): void {
    const frame = this.#stack[this.#stack.length - 1];
    if (!frame) {
      this.#mode = 'done';
      return;
    }
    if (frame.key === ARRAY) frame.index++;
    else {
      frame.key = undefined;
      frame.dropMember = false;
    }
    this.#mode = 'after';
  }

  /** Whether a value read now is kept (its container is kept and its member not dropped). */
  #keepingHere(): boolean {
    const frame = this.#stack[this.#stack.length - 1];
    if (!frame) return true;
    return frame.container !== undefined && !frame.dropMember;
  }

  /** Counts a kept value; false (and a cut) once {@link REDUCE_LIMITS.values} are kept. */
  #countValue(): boolean {
    if (this.#values >= REDUCE_LIMITS.values) return false;
    this.#values++;
    return true;
  }

  /** Puts a kept value in its place. */
  #place(value: unknown): void {
    const frame = this.#stack[this.#stack.length - 1];
    if (!frame) this.#root = value;
    else if (Array.isArray(frame.container)) frame.container.push(value);
    else if (frame.container !== undefined && frame.key !== undefined) Object.defineProperty(frame.container, frame.key, { value, enumerable: true, writable: true, configurable: true });
  }

  /** Records that the value at the current place (plus `tail`) lost something. */
  #cut(tail: ValuePath): void {
    if (this.#cutEverywhere) return;
    if (this.#cuts.length >= REDUCE_LIMITS.cuts) {
      this.#cutEverywhere = true;
      return;
    }
    const path: (string | number)[] = [];
    for (const frame of this.#stack) {
      if (frame.key === ARRAY) path.push(frame.index);
      else if (frame.key !== undefined) path.push(frame.key);
    }
    this.#cuts.push([...path, ...tail]);
  }

  #openString(isKey: boolean): void {
    this.#stringIsKey = isKey;
    this.#wholeLength = 0;
    this.#wholeOver = false;
    this.#lineLength = 0;
    this.#lineOver = false;
    this.#lineHead0 = -1;
    this.#lineHead1 = -1;
    this.#firstLine = true;
    this.#skeleton = [];
    this.#skeletonBytes = 0;
    this.#stringCut = false;
    this.#escape = 0;
    this.#mode = 'string';
  }

  #stringByte(byte: number): void {
    if (this.#escape !== 0) {
      this.#whole1(byte);
      if (this.#escape === 1) {
        if (byte === 0x75) {
          this.#escape = 2;
          this.#escapeCode = 0;
          return;
        }
        this.#escape = 0;
        if (byte === 0x6e) this.#endLine();
        else {
          this.#head(SIMPLE_ESCAPES[byte] ?? byte);
          this.#line1(BACKSLASH);
          this.#line1(byte);
        }
        return;
      }
      const digit = hexValue(byte);
      if (digit < 0) throw unexpected(byte);
      this.#escapeCode = this.#escapeCode * 16 + digit;
      if (++this.#escape < 6) return;
      this.#escape = 0;
      if (this.#escapeCode === LF) this.#endLine();
      else {
        this.#head(this.#escapeCode);
        this.#lineBytes(`\\u${this.#escapeCode.toString(16).padStart(4, '0')}`);
      }
      return;
    }
    if (byte === QUOTE) return this.#closeString();
    this.#whole1(byte);
    if (byte === BACKSLASH) this.#escape = 1;
    else if (byte === LF) this.#endLine();
    else {
      this.#head(byte);
      this.#line1(byte);
    }
  }

  #whole1(byte: number): void {
    if (this.#wholeOver) return;
    if (this.#wholeLength === this.#whole.length) {
      this.#wholeOver = true;
      return;
    }
    this.#whole[this.#wholeLength++] = byte;
  }

  /** Notes one decoded character of the current line while its first two are not yet known. */
  #head(code: number): void {
    if (this.#lineHead0 === -1) this.#lineHead0 = code;
    else if (this.#lineHead1 === -1) this.#lineHead1 = code;
  }

  #line1(byte: number): void {
    if (this.#lineOver) return;
    if (this.#lineLength === this.#line.length) {
      this.#lineOver = true;
      return;
    }
    this.#line[this.#lineLength++] = byte;
  }

  /** Plain bytes `chunk[start..end)` of the current line (no quote, backslash or LF among them). */
  #lineRun(chunk: Uint8Array, start: number, end: number): void {
    if (this.#lineHead1 === -1) {
      this.#head(chunk[start]!);
      if (start + 1 < end) this.#head(chunk[start + 1]!);
    }
    if (this.#lineOver) return;
    const line = this.#line;
    let at = this.#lineLength;
    const stop = Math.min(end, start + line.length - at);
    // A plain loop: runs are short (between escapes), where a subarray per run costs more.
    for (let i = start; i < stop; i++) line[at++] = chunk[i]!;
    this.#lineLength = at;
    if (stop < end) this.#lineOver = true;
  }

  #lineBytes(text: string): void {
    for (let i = 0; i < text.length; i++) this.#line1(text.charCodeAt(i));
  }

  /** One line of the open string has ended: its skeleton keeps it unless it is a hunk's content line. */
  #endLine(): void {
    const first = this.#lineHead0;
    const second = this.#lineHead1;
    const firstLine = this.#firstLine;
    const length = this.#lineLength;
    const over = this.#lineOver;
    this.#firstLine = false;
    this.#lineLength = 0;
    this.#lineOver = false;
    this.#lineHead0 = -1;
    this.#lineHead1 = -1;
    if (length === 0) return;
    // Content lines of a diff hunk (`+`, `-`, ` `, `@@`) carry no file names.
    const content = !firstLine && (first === 0x2b || first === 0x2d || first === 0x20 || (first === 0x40 && second === 0x40));
    if (content) return;
    if (over || this.#skeletonBytes + length > REDUCE_LIMITS.skeleton) {
      this.#stringCut = true;
      return;
    }
    this.#skeleton.push(decodeStringBody(this.#line.subarray(0, length)));
    this.#skeletonBytes += length + 1;
  }

  #closeString(): void {
    this.#mode = 'after';
    if (this.#stringIsKey) {
      const frame = this.#stack[this.#stack.length - 1]!;
      if (this.#wholeOver) {
        frame.dropMember = true;
        if (frame.container !== undefined) this.#cut(['(a key too long to keep)']);
      } else frame.key = decodeStringBody(this.#whole.subarray(0, this.#wholeLength));
      this.#mode = 'colon';
      return;
    }
    if (!this.#keepingHere() || !this.#countValue()) {
      if (this.#keepingHere()) this.#cut([]);
      this.#afterValue();
      return;
    }
    let text: string;
    let kept: number;
    if (!this.#wholeOver) {
      text = decodeStringBody(this.#whole.subarray(0, this.#wholeLength));
      kept = this.#wholeLength;
    } else {
      this.#endLine();
      text = this.#skeleton.join('\n');
      kept = this.#skeletonBytes;
    }
    if (this.#totalKept + kept > REDUCE_LIMITS.total) {
      text = '';
      this.#stringCut = true;
    } else this.#totalKept += kept;
    if (this.#stringCut) this.#cut([]);
    this.#place(text);
    this.#afterValue();
  }

  #endLiteral(): void {
    const text = this.#literal;
    this.#literal = '';
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Not V8's message: it quotes the literal, which may be the start of an unquoted secret
      // (`sk-proj-…` is made of literal bytes), too short for the log's redaction to recognise.
      throw new SyntaxError('a JSON number or literal in the payload is malformed');
    }
    if (this.#keepingHere() && this.#countValue()) this.#place(value);
    else if (this.#keepingHere()) this.#cut([]);
    this.#afterValue();
  }
}

/** The `key` of an array's frame (arrays have indexes, not keys). */
const ARRAY = '\u0000array';

function isLiteralByte(byte: number): boolean {
  // Digits, sign, decimal point, exponent, and the letters of true/false/null.
  return (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || (byte >= 0x61 && byte <= 0x7a) || byte === 0x45;
}

/** The value of a hex digit byte, or -1. */
function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

function unexpected(byte: number): SyntaxError {
  return new SyntaxError(`unexpected byte 0x${byte.toString(16).padStart(2, '0')} in the JSON payload`);
}

/** The text of a JSON string body given as its bytes (escapes undecoded, raw controls tolerated). */
function decodeStringBody(bytes: Uint8Array): string {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  try {
    return parseAgentJson(`"${body}"`) as string;
  } catch {
    // A line cut inside an escape cannot happen (escapes are added whole); anything else is the agent's malformed text.
    throw new SyntaxError('a JSON string in the payload is malformed');
  }
}
