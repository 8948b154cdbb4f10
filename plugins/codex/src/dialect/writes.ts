import { patchTargets, patchText } from './patch.js';

/**
 * The files a Codex call writes (`Dialect.writeTargets`): every path of an `apply_patch` call's
 * patch (added, updated, deleted, and both ends of a move; `patch.ts`), `undefined` for every
 * other tool, decided by name. Shell commands are not parsed (the final `cordon check` audits
 * what they did).
 */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  if (toolName !== 'apply_patch') return undefined;
  return patchTargets(patchText(toolInput));
}
