/**
 * The files a Codex `apply_patch` call touches, read from its patch envelope (the Codex
 * apply_patch format, `codex-rs/apply-patch` of openai/codex: `*** Begin Patch`, then per file
 * `*** Add File: <path>`, `*** Delete File: <path>` or `*** Update File: <path>` optionally
 * followed by `*** Move to: <path>`, then `*** End Patch`).
 *
 * Every path a hunk header names is returned, in patch order, as written (relative to the call's
 * working directory, or absolute): an added, deleted or updated file, and both ends of a move
 * (the old file disappears, the new one appears). Only lines that begin with a marker count: the
 * lines of a hunk's body start with `+`, `-`, a space or `@@`, so file content can never be taken
 * for a header. Trailing whitespace (and a `\r` of CRLF text) is dropped from each path, as
 * Codex's parser trims its marker lines. A text that is no patch yields no path.
 */
export function patchTargets(patch: string): string[] {
  return patchHeaders(patch).map((h) => h.path);
}

/** What a patch header does to its file. */
export type PatchOperation = 'add' | 'delete' | 'update' | 'move';

/** The file headers of a patch in order (see {@link patchTargets}: the same lines, with what each does). */
export function patchHeaders(patch: string): Array<{ readonly op: PatchOperation; readonly path: string }> {
  const headers: Array<{ op: PatchOperation; path: string }> = [];
  for (const raw of patch.split('\n')) {
    if (!raw.startsWith('*** ')) continue;
    const line = raw.trimEnd();
    const marker = MARKERS.find(([prefix]) => line.startsWith(prefix));
    if (!marker) continue;
    const path = line.slice(marker[0].length).trim();
    if (path !== '') headers.push({ op: marker[1], path });
  }
  return headers;
}

/** The hunk headers that name a file (the Codex apply_patch grammar). */
const MARKERS: ReadonlyArray<readonly [string, PatchOperation]> = [
  ['*** Add File: ', 'add'],
  ['*** Delete File: ', 'delete'],
  ['*** Update File: ', 'update'],
  ['*** Move to: ', 'move'],
];

/** The patch text of an `apply_patch` call: `command` as Codex's hooks send it, or `input` (the freeform tool's field). */
export function patchText(toolInput: Readonly<Record<string, unknown>>): string {
  return typeof toolInput.command === 'string' ? toolInput.command : typeof toolInput.input === 'string' ? toolInput.input : '';
}
