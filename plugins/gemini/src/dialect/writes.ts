/**
 * The files a Gemini CLI call writes (`Dialect.writeTargets`): `write_file` and `replace` name
 * theirs in `file_path` (the Gemini CLI file system tools reference); `undefined` for every
 * other tool, decided by name. Shell commands are not parsed.
 */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  if (toolName !== 'write_file' && toolName !== 'replace') return undefined;
  const path = toolInput.file_path;
  return typeof path === 'string' && path !== '' ? [path] : [];
}
