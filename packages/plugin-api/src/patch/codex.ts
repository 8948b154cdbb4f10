import type { PatchHeader, PatchOperation } from './headers.js';

/**
 * The file headers of a Codex `apply_patch` patch, read from its envelope the way Codex's own
 * parser reads it (the Codex apply_patch format, `codex-rs/apply-patch/src/parser.rs` of
 * openai/codex: `*** Begin Patch`, then per file `*** Add File: <path>`, `*** Delete File: <path>`
 * or `*** Update File: <path>` optionally followed by `*** Move to: <path>`, then `*** End Patch`).
 *
 * Every path a file header names is returned, in patch order, as written (relative to the call's
 * working directory, or absolute): an added, deleted or updated file, and both ends of a move
 * (the old file disappears, the new one appears). What Codex's parser does, and this one too:
 *
 * - the whole text is trimmed of Unicode white space, then cut into lines at `\n` (a `\r` before
 *   it is dropped, so CRLF text reads alike);
 * - the first and last lines, trimmed, must be `*** Begin Patch` and `*** End Patch`, or the text
 *   is wrapped in a heredoc (`<<EOF`, `<<'EOF'`, `<<"EOF"` … `EOF`, at least four lines);
 * - a file header is the first line of a hunk, **trimmed**: leading blanks or tabs do not hide
 *   it; its path is the rest of the trimmed line after the marker (`*** Add File: ` with its one
 *   space), so a path keeps any further leading blanks;
 * - an added file's body is the following lines that begin with `+`; an update's `*** Move to: `
 *   must begin the line right after its header (untrimmed), its path the rest of that line; its
 *   chunks run on while their lines begin with a space, `+`, `-` or `@@`, or are empty, so a
 *   context line that reads like a header is no header.
 *
 * A text Codex would refuse (no envelope, a malformed hunk) is read leniently instead: every line
 * whose trimmed form begins with a file marker counts. Codex writes nothing for such a patch, so
 * naming more files than it would costs nothing, while a parser less lenient than Codex's would
 * let a write through unjudged.
 */
export function codexPatchHeaders(patch: string): PatchHeader[] {
  const lines = patchLines(patch);
  return strictHeaders(lines) ?? lenientHeaders(lines);
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';

/** The hunk headers that name a file (the Codex apply_patch grammar). */
const MARKERS: ReadonlyArray<readonly [string, Exclude<PatchOperation, 'move'>]> = [
  ['*** Add File: ', 'add'],
  ['*** Delete File: ', 'delete'],
  ['*** Update File: ', 'update'],
];

/** Trims Unicode `White_Space` from both ends, as Rust's `str::trim` (JavaScript's `trim` also strips U+FEFF, and keeps U+0085). */
export function trimWhiteSpace(text: string): string {
  return text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');
}

/** The text trimmed and cut into lines as Rust's `str::lines` cuts them (`\n`, or `\r\n`). */
function patchLines(patch: string): string[] {
  const text = trimWhiteSpace(patch);
  if (text === '') return [];
  return text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The lines between the envelope's markers, or undefined when there is no envelope (heredoc wrapping allowed). */
function envelopeBody(lines: readonly string[]): readonly string[] | undefined {
  const bounded = (l: readonly string[]) => l.length >= 2 && trimWhiteSpace(l[0]!) === BEGIN && trimWhiteSpace(l[l.length - 1]!) === END;
  if (bounded(lines)) return lines.slice(1, -1);
  const first = lines[0];
  if (lines.length >= 4 && (first === '<<EOF' || first === "<<'EOF'" || first === '<<"EOF"') && lines[lines.length - 1]!.endsWith('EOF')) {
    const inner = lines.slice(1, -1);
    if (bounded(inner)) return inner.slice(1, -1);
  }
  return undefined;
}

/** The headers as Codex's parser finds them, or undefined where it would refuse the patch. */
function strictHeaders(lines: readonly string[]): PatchHeader[] | undefined {
  const body = envelopeBody(lines);
  if (body === undefined) return undefined;
  const headers: PatchHeader[] = [];
  let i = 0;
  while (i < body.length) {
    const first = trimWhiteSpace(body[i]!);
    const marker = MARKERS.find(([prefix]) => first.startsWith(prefix));
    if (!marker) return undefined;
    const path = first.slice(marker[0].length);
    headers.push({ op: marker[1], path });
    i++;
    if (marker[1] === 'add') {
      while (i < body.length && body[i]!.startsWith('+')) i++;
    } else if (marker[1] === 'update') {
      if (i < body.length && body[i]!.startsWith(MOVE)) headers.push({ op: 'move', path: body[i++]!.slice(MOVE.length) });
      const end = updateEnd(body, i);
      if (end === undefined) return undefined;
      i = end;
    }
  }
  return headers;
}

/** Where an update hunk's chunks starting at `start` end (the next hunk's first line), or undefined when they are malformed or empty. */
function updateEnd(body: readonly string[], start: number): number | undefined {
  let i = start;
  let chunks = 0;
  while (i < body.length) {
    const line = body[i]!;
    if (trimWhiteSpace(line) === '') {
      i++;
      continue;
    }
    if (line.startsWith('*')) break;
    // A chunk: an optional `@@` line (required after the first), then its lines.
    if (line === '@@' || line.startsWith('@@ ')) i++;
    else if (chunks > 0) return undefined;
    let taken = 0;
    while (i < body.length) {
      const l = body[i]!;
      if (l === END_OF_FILE) {
        if (taken === 0) return undefined;
        i++;
        break;
      }
      if (l !== '' && !' +-'.includes(l[0]!)) {
        if (taken === 0) return undefined;
        break;
      }
      taken++;
      i++;
    }
    if (taken === 0) return undefined;
    chunks++;
  }
  return chunks > 0 ? i : undefined;
}

/** Every line whose trimmed form begins with a file marker, and a `*** Move to: ` line: more than Codex would take, never less. */
function lenientHeaders(lines: readonly string[]): PatchHeader[] {
  const headers: PatchHeader[] = [];
  for (const line of lines) {
    const trimmed = trimWhiteSpace(line);
    if (!trimmed.startsWith('*** ')) continue;
    const marker = MARKERS.find(([prefix]) => trimmed.startsWith(prefix));
    if (marker) {
      const path = trimmed.slice(marker[0].length);
      if (path !== '') headers.push({ op: marker[1], path });
    } else if (trimmed.startsWith(MOVE)) {
      const path = trimmed.slice(MOVE.length);
      if (path !== '') headers.push({ op: 'move', path });
    }
  }
  return headers;
}
