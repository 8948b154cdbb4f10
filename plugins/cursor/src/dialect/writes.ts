import type { WriteTarget } from '@cordon/plugin-api';

/**
 * The file-writing tools of the Cursor agent as its `preToolUse` hook names them (the Cursor hooks
 * docs: `Write`, `StrReplace`/`Edit`, `Delete`; files keyed as `file_path`, `path` in some builds).
 */
const WRITE_TOOLS = new Set(['Write', 'StrReplace', 'Edit', 'MultiEdit', 'Delete']);

/**
 * The files a Cursor call changes (`Dialect.writeTargets`): `undefined` for every other tool,
 * decided by name. A `Delete` removes its path (`remove`: a symbolic link there goes, not what it
 * leads to); the others are plain paths (judged as `replace`: how Cursor writes is not documented,
 * so both a link and where it leads are judged).
 */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): ReadonlyArray<string | WriteTarget> | undefined {
  if (!WRITE_TOOLS.has(toolName)) return undefined;
  const path = typeof toolInput.file_path === 'string' ? toolInput.file_path : toolInput.path;
  if (typeof path !== 'string' || path === '') return [];
  return toolName === 'Delete' ? [{ path, kind: 'remove' }] : [path];
}
