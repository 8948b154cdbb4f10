import type { WriteTarget } from '@cordon/plugin-api';

/**
 * The file-writing tools of Claude Code and the input field naming the file (the Claude Code
 * tools reference: `Write`, `Edit`, `MultiEdit` take `file_path`, `NotebookEdit` takes
 * `notebook_path`; always absolute).
 */
const WRITE_FIELDS: Readonly<Record<string, string>> = { Write: 'file_path', Edit: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' };

/**
 * The files a Claude Code call writes (`Dialect.writeTargets`): `undefined` for every other tool,
 * decided by name. Each is a `replace`: Claude Code builds have written a file by a temporary
 * file renamed over it, replacing a symbolic link at the path by a regular file and leaving its
 * target untouched (https://github.com/anthropics/claude-code/issues/28376), so both the link and
 * where it leads are judged.
 */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly WriteTarget[] | undefined {
  if (!Object.hasOwn(WRITE_FIELDS, toolName)) return undefined;
  const path = toolInput[WRITE_FIELDS[toolName]!];
  return typeof path === 'string' && path !== '' ? [{ path, kind: 'replace' }] : [];
}
