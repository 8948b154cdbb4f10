import type { PatchHeader } from './headers.js';

/**
 * Python's white space (`str.isspace`, which `\s` of a `str` pattern and `str.strip` both use):
 * ASCII blanks and `\x1c`–`\x1f`, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F,
 * U+205F, U+3000. JavaScript's `\s` differs (it takes U+FEFF, and not `\x1c`–`\x1f` or U+0085).
 */
const PY_SPACE = '[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

/** One operation marker, matched at the start of a line (Python's `re.match`); `.` is any character but `\n`. */
function marker(word: string): RegExp {
  return new RegExp(`^\\*\\*\\*${PY_SPACE}*${word}${PY_SPACE}+File:${PY_SPACE}*([^\\n]+)`);
}

/** The operation markers in the order Hermes Agent tries them (`_OP_MARKERS` of `tools/patch_parser.py`). */
const FILE_MARKERS: ReadonlyArray<readonly [RegExp, 'update' | 'add' | 'delete']> = [
  [marker('Update'), 'update'],
  [marker('Add'), 'add'],
  [marker('Delete'), 'delete'],
];
const MOVE_FILE = new RegExp(`^\\*\\*\\*${PY_SPACE}*Move${PY_SPACE}+File:${PY_SPACE}*([^\\n]+?)${PY_SPACE}*->${PY_SPACE}*([^\\n]+)`);
/** Codex's `*** Move to:` line, which Hermes Agent refuses (`_MOVE_TO_MARKER`); read leniently. */
const MOVE_TO = new RegExp(`^\\*\\*\\*${PY_SPACE}*Move${PY_SPACE}+to:${PY_SPACE}*([^\\n]*)$`);
const PY_STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'g');

/** Strips Python white space from both ends, as `str.strip()` (see {@link PY_SPACE}). */
function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '');
}

/**
 * The file headers of a V4A patch as Hermes Agent reads it (`parse_v4a_patch` in
 * `tools/patch_parser.py` of NousResearch/hermes-agent), in patch order:
 *
 * - the text is cut into lines at `\n` (a `\r` ending a line is dropped);
 * - a header begins its line at column 0 (an indented one is a context line to Hermes):
 *   `*** Update File: <p>`, `*** Add File: <p>`, `*** Delete File: <p>` and
 *   `*** Move File: <from> -> <to>`, with any white space (none at all included) after `***`
 *   and after `File:`, and at least one blank between the two words; the path is the rest of
 *   the line stripped of white space (a move splits at its first `->` that leaves a source);
 * - a move names both ends: the source and the destination each as `move`.
 *
 * Read more leniently than Hermes reads it, never less: every line of the text counts, also
 * those outside `*** Begin Patch` … `*** End Patch` (Hermes ignores them), and a Codex-style
 * `*** Move to: <p>` line (Hermes refuses the whole patch for it). Hermes writes nothing there,
 * so naming those files costs nothing. A header whose path strips to nothing is left out (Hermes
 * refuses a patch with one). Never throws.
 */
export function v4aPatchHeaders(patch: string): PatchHeader[] {
  const headers: PatchHeader[] = [];
  for (const raw of patch.split('\n')) {
    if (!raw.startsWith('*')) continue;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const push = (op: PatchHeader['op'], path: string | undefined) => {
      const stripped = pyStrip(path ?? '');
      if (stripped !== '') headers.push({ op, path: stripped });
    };
    const file = FILE_MARKERS.map(([re, op]) => [re.exec(line), op] as const).find(([m]) => m !== null);
    if (file) {
      push(file[1], file[0]![1]);
      continue;
    }
    const move = MOVE_FILE.exec(line);
    if (move) {
      push('move', move[1]);
      push('move', move[2]);
      continue;
    }
    const moveTo = MOVE_TO.exec(line);
    if (moveTo) push('move', moveTo[1]);
  }
  return headers;
}
