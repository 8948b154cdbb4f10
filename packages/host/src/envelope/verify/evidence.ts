import { cutUtf8Bytes, cutUtf8BytesEnd } from '@cordon/plugin-api';

/**
 * How cordon keeps a verifier's output and shows it again. A verifier is untrusted (an agent may
 * have written it), so nothing in its output can say what cordon did with it:
 *
 * - The record keeps the verifier's text only. Where cordon left out the middle of a longer
 *   stream, the record says so as data beside the text (`stdout_cut`/`stderr_cut`:
 *   {@link StreamCut}), never as text inside it, so a marker the verifier prints is just text.
 * - Every renderer draws cordon's own notes (`(stdout longer than 16 KiB, N bytes of its middle
 *   left out; …)`, `...[N bytes left out by cordon]...`) from that data, and shows the verifier's
 *   lines through {@link shownVerifierText}, which puts {@link VERIFIER_TEXT_NOTE} before any line
 *   of the verifier's that is shaped like one of cordon's notes.
 * - Records written before the cut was data (no `stdout_cut` key at all) hold cordon's marker in
 *   the text: `\n...[N bytes left out by cordon]...\n` between the head and the tail, or
 *   `\n...[truncated by Cordon]` at the end of the first 16 KiB. Those still read
 *   ({@link streamEvidence}), the marker taken as cordon's only where cordon put it (after a head
 *   of about {@link EVIDENCE_HALF} bytes, or after the first {@link EVIDENCE_BYTES}); a marker
 *   anywhere else in such a record is the verifier's text. (A verifier that printed invalid
 *   UTF-8, each byte of which is kept as a 3-byte U+FFFD, could still have shifted a marker of its
 *   own to that place in such an old record; records written now leave it no way.)
 */

/** Output kept per stream in the evidence, bytes (the BEKO2210/SkillQuarry cordon: 16 KiB): the first and the last half. */
export const EVIDENCE_BYTES = 16 * 1024;
/** Bytes kept from the start and from the end of a longer stream (the summary a test runner prints last survives). */
export const EVIDENCE_HALF = EVIDENCE_BYTES / 2;
/** Appended to evidence that was cut, by older cordon versions (records of that time still hold it). */
export const TRUNCATION_MARKER = '\n...[truncated by Cordon]';
/**
 * Where older cordon versions wrote that the middle of a longer stream was left out, inside the
 * text: `\n...[N bytes left out by cordon]...\n` (`by Cordon` in still older ones). Read in
 * records without a `stdout_cut` key only.
 */
const OMISSION_MARKER = /\n\.\.\.\[(\d+) bytes left out by [Cc]ordon\]\.\.\.\n/g;

/** Where cordon left out the middle of one stream of a verifier's output longer than {@link EVIDENCE_BYTES}. */
export interface StreamCut {
  /**
   * Bytes of the kept text's UTF-8 encoding before the cut (the head, at most
   * {@link EVIDENCE_HALF}); the rest of the text is the tail. Always on a character boundary of
   * the kept text.
   */
  readonly head_bytes: number;
  /** Bytes of the verifier's output left out there, as it wrote them. */
  readonly left_out_bytes: number;
}

/**
 * The evidence of one stream from what cordon read of it: `head` (its first bytes, at least
 * {@link EVIDENCE_HALF} when there were that many), `tail` (its last bytes, up to
 * {@link EVIDENCE_BYTES}) and `total` (bytes it wrote). Whole (`cut` null) when it fits in
 * {@link EVIDENCE_BYTES}, else its first and last {@link EVIDENCE_HALF} bytes, each cut on a
 * character boundary, with where and how much was left out. The text is UTF-8, invalid bytes
 * replaced by U+FFFD.
 */
export function keptStream(head: Buffer, tail: Buffer, total: number): { readonly text: string; readonly cut: StreamCut | null } {
  if (total <= EVIDENCE_BYTES) return { text: Buffer.concat([head, tail]).toString('utf8'), cut: null };
  const first = cutUtf8Bytes(head, EVIDENCE_HALF);
  const last = cutUtf8BytesEnd(tail, EVIDENCE_HALF);
  const headBytes = Buffer.byteLength(first, 'utf8');
  const left = Math.max(0, total - headBytes - Buffer.byteLength(last, 'utf8'));
  return { text: first + last, cut: { head_bytes: headBytes, left_out_bytes: left } };
}

/** The fields of a verifier result {@link streamEvidence} reads. */
export interface StreamRecord {
  readonly stdout: string;
  readonly stderr: string;
  /** `null`: whole; `undefined` (no key): a record of an older cordon, whose marker is in the text. */
  readonly stdout_cut?: StreamCut | null;
  readonly stderr_cut?: StreamCut | null;
}

/**
 * What one stream's evidence holds, however the record was written: `whole` text, a `middle`
 * left out between `head` and `tail` (`leftOutBytes` of it), or (records of the first versions)
 * only the first 16 KiB, the `end` left out.
 */
export type StreamEvidence =
  | { readonly kind: 'whole'; readonly text: string }
  | { readonly kind: 'middle'; readonly head: string; readonly tail: string; readonly leftOutBytes: number }
  | { readonly kind: 'end'; readonly head: string };

/**
 * Reads stream `which` of `record` (see the module's rules): the cut from `<which>_cut` when the
 * key is there; in an older record, cordon's marker at the place cordon put it. A cut that does
 * not fit the text (past its end, or inside a character) reads as none: the text is shown whole.
 */
export function streamEvidence(record: StreamRecord, which: 'stdout' | 'stderr'): StreamEvidence {
  const text = record[which];
  const cut = record[`${which}_cut`];
  if (cut === null) return { kind: 'whole', text };
  if (cut !== undefined) {
    const split = splitAtByte(text, cut.head_bytes);
    return split ? { kind: 'middle', head: split[0], tail: split[1], leftOutBytes: cut.left_out_bytes } : { kind: 'whole', text };
  }
  if (text.endsWith(TRUNCATION_MARKER)) {
    const head = text.slice(0, -TRUNCATION_MARKER.length);
    // The first versions decoded the first 16 KiB whole: never fewer bytes than were read.
    if (Buffer.byteLength(head, 'utf8') >= EVIDENCE_BYTES) return { kind: 'end', head };
  }
  for (const m of text.matchAll(OMISSION_MARKER)) {
    const head = text.slice(0, m.index);
    // cutUtf8Bytes kept at least EVIDENCE_HALF - 3 bytes of a head that had EVIDENCE_HALF.
    if (Buffer.byteLength(head, 'utf8') >= EVIDENCE_HALF - 3) return { kind: 'middle', head, tail: text.slice(m.index + m[0].length), leftOutBytes: Number(m[1]) };
  }
  return { kind: 'whole', text };
}

/** `text` split after its first `bytes` UTF-8 bytes, or undefined when that is past its end or inside a character. */
function splitAtByte(text: string, bytes: number): [string, string] | undefined {
  if (!Number.isSafeInteger(bytes) || bytes < 0) return undefined;
  const encoded = Buffer.from(text, 'utf8');
  if (bytes > encoded.length) return undefined;
  const head = encoded.subarray(0, bytes).toString('utf8');
  if (Buffer.byteLength(head, 'utf8') !== bytes) return undefined;
  return [head, encoded.subarray(bytes).toString('utf8')];
}

/** Why `cut` is not a {@link StreamCut} of `text` (a stored record's `<stream>_cut`), or undefined. */
export function streamCutProblem(cut: unknown, text: string): string | undefined {
  if (cut === undefined || cut === null) return undefined;
  if (typeof cut !== 'object' || Array.isArray(cut)) return 'is not {head_bytes, left_out_bytes}';
  const { head_bytes: head, left_out_bytes: left } = cut as Record<string, unknown>;
  if (!Number.isSafeInteger(left) || (left as number) < 0) return 'left_out_bytes is not a whole number';
  if (!Number.isSafeInteger(head) || !splitAtByte(text, head as number)) return 'head_bytes is not a character boundary of the text';
  return undefined;
}

/**
 * What cordon puts before a line of the verifier's that is shaped like one of its own notes
 * ({@link shownVerifierText}).
 */
export const VERIFIER_TEXT_NOTE = '(the verifier printed:) ';

/**
 * A line shaped like a note of cordon's: its text, blanks aside, opens with a bracket and closes
 * with one (`(stdout:)`, `(last lines of stderr:)`, `[…]`), in any script's brackets (Unicode
 * Ps/Pe, so `（stdout:）` too).
 */
const NOTE_SHAPED = /^\s*\p{Ps}.*\p{Pe}\s*$/u;
/**
 * Text shaped like one of cordon's markers anywhere in a line: an ellipsis (two punctuation
 * marks, `…`, `‥` or `⋯`) then a bracket (`...[`, `..(`, `．．［`).
 */
const MARKER_SHAPED = /(?:\p{Po}\p{Po}|[\u2025\u2026\u22ef])\s*\p{Ps}/u;
/** Every way a viewer may break a line (captured, so that a split keeps them): the text between two of these is one line. */
const LINE_BREAK = /(\r\n|[\n\r\v\f\u0085\u2028\u2029])/;

/**
 * `text` (a verifier's output, or part of it) as cordon shows it beside its own notes: each line
 * (split at every line break a viewer may honour: `\n`, `\r`, `\v`, `\f`, U+0085, U+2028,
 * U+2029) that is shaped like a note or marker of cordon's (a whole line in brackets, or an
 * ellipsis followed by a bracket anywhere in it) gets {@link VERIFIER_TEXT_NOTE} in front, so no
 * line the verifier printed can pass for cordon saying that lines were left out, or where a
 * stream starts. A line that already starts with that note is left as it is: applying this twice
 * changes nothing more. Every other character is kept.
 */
export function shownVerifierText(text: string): string {
  const parts = text.split(LINE_BREAK);
  // Even indexes are lines, odd ones the breaks between them.
  for (let i = 0; i < parts.length; i += 2) {
    const line = parts[i]!;
    if (!line.startsWith(VERIFIER_TEXT_NOTE) && (NOTE_SHAPED.test(line) || MARKER_SHAPED.test(line))) parts[i] = VERIFIER_TEXT_NOTE + line;
  }
  return parts.join('');
}
