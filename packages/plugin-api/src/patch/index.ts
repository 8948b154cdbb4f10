import { codexPatchHeaders } from './codex.js';
import type { PatchHeader } from './headers.js';
import { v4aPatchHeaders } from './v4a.js';

export type { PatchHeader, PatchOperation } from './headers.js';
export { trimWhiteSpace } from './codex.js';

/**
 * The patch dialects of the `*** Begin Patch` family whose file headers cordon reads:
 * - `codex`: Codex's `apply_patch` (`codex-rs/apply-patch/src/parser.rs` of openai/codex; a move
 *   is `*** Update File: <p>` followed by `*** Move to: <q>`);
 * - `v4a`: V4A as Hermes Agent's `patch` tool reads it in its `patch` mode
 *   (`tools/patch_parser.py` of NousResearch/hermes-agent; a move is `*** Move File: <p> -> <q>`).
 */
export type PatchGrammar = 'codex' | 'v4a';

/**
 * The file headers of `patch` in patch order, each with what it does to its file, read as the
 * agent of `grammar` reads them and, where that agent would refuse the text, more leniently
 * (a header cordon misses is a write it does not judge; one too many costs nothing, the agent
 * writes nothing for a text it refuses). A pure function of its input; never throws.
 */
export function patchHeaders(patch: string, grammar: PatchGrammar): PatchHeader[] {
  return grammar === 'codex' ? codexPatchHeaders(patch) : v4aPatchHeaders(patch);
}

/**
 * Every file `patch` touches, in patch order, as written in it (relative to the directory the
 * agent applies it in, or absolute): added, updated and deleted files and both ends of a move.
 * See {@link patchHeaders}.
 */
export function patchTargets(patch: string, grammar: PatchGrammar): string[] {
  return patchHeaders(patch, grammar).map((h) => h.path);
}
