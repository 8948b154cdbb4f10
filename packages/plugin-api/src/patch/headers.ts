/** What a patch header does to its file. */
export type PatchOperation = 'add' | 'delete' | 'update' | 'move';

/**
 * One file header of a patch: the file it names, as written in the patch (relative to the
 * directory the agent applies it in, or absolute). A move gives two headers: its source as
 * `update` (Codex) or `move` (V4A as Hermes Agent reads it), and its destination as `move`.
 */
export interface PatchHeader {
  readonly op: PatchOperation;
  readonly path: string;
}
