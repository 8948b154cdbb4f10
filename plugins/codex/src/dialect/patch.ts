import { patchHeaders as readHeaders, type PatchHeader } from '@cordon/plugin-api';

export type { PatchHeader, PatchOperation } from '@cordon/plugin-api';

/**
 * The file headers of a Codex `apply_patch` patch in order, read as Codex's own parser reads
 * them (`patchHeaders` of `@cordon/plugin-api`, grammar `codex`).
 */
export function patchHeaders(patch: string): PatchHeader[] {
  return readHeaders(patch, 'codex');
}

/** The files a Codex `apply_patch` patch touches, in patch order, as written (both ends of a move). */
export function patchTargets(patch: string): string[] {
  return patchHeaders(patch).map((h) => h.path);
}

/** The patch text of an `apply_patch` call: `command` as Codex's hooks send it, or `input` (the freeform tool's field). */
export function patchText(toolInput: Readonly<Record<string, unknown>>): string {
  return typeof toolInput.command === 'string' ? toolInput.command : typeof toolInput.input === 'string' ? toolInput.input : '';
}
