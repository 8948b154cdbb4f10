/**
 * The files a Hermes Agent call writes (`Dialect.writeTargets`): `write_file` and `patch` name
 * theirs in `path` (the Hermes Agent tools reference); `undefined` for every other tool, decided
 * by name. A `patch` call in its multi-file patch mode names no `path` and is not judged before
 * it runs (the final `cordon check` audits it); neither are shell commands.
 */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  if (toolName !== 'write_file' && toolName !== 'patch') return undefined;
  const path = toolInput.path;
  return typeof path === 'string' && path !== '' ? [path] : [];
}
