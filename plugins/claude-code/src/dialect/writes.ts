/**
 * The file-writing tools of Claude Code and the input field naming the file (the Claude Code
 * tools reference: `Write`, `Edit`, `MultiEdit` take `file_path`, `NotebookEdit` takes
 * `notebook_path`; always absolute).
 */
const WRITE_FIELDS: Readonly<Record<string, string>> = { Write: 'file_path', Edit: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' };

/** The files a Claude Code call writes (`Dialect.writeTargets`): `undefined` for every other tool, decided by name. */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  if (!Object.hasOwn(WRITE_FIELDS, toolName)) return undefined;
  const path = toolInput[WRITE_FIELDS[toolName]!];
  return typeof path === 'string' && path !== '' ? [path] : [];
}
