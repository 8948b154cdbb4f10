/**
 * The file-writing tools of the Cursor agent as its `preToolUse` hook names them (the Cursor hooks
 * docs: `Write`, `StrReplace`/`Edit`, `Delete`; files keyed as `file_path`, `path` in some builds).
 */
const WRITE_TOOLS = new Set(['Write', 'StrReplace', 'Edit', 'MultiEdit', 'Delete']);

/** The files a Cursor call writes (`Dialect.writeTargets`): `undefined` for every other tool, decided by name. */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  if (!WRITE_TOOLS.has(toolName)) return undefined;
  const path = typeof toolInput.file_path === 'string' ? toolInput.file_path : toolInput.path;
  return typeof path === 'string' && path !== '' ? [path] : [];
}
