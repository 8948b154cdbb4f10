import { statSync } from 'node:fs';

/**
 * What keeps `path` from being used as an existing directory, in a few words (`no such
 * directory`, `not a directory`, `permission denied`, `cannot be read (EIO)`), or undefined when
 * it is one. One `stat(2)`, following symbolic links (a link to a directory is a directory);
 * a path below a regular file (ENOTDIR) is `not a directory`. A relative path is taken from the
 * current directory.
 *
 * The host checks every flag that names a directory which must exist (`--repo`, `--project-dir`)
 * with it; a plugin's command does the same for its own (the codex plugin's `pcodx --cwd`), so
 * that `--cwd /x: no such directory` reads alike everywhere.
 */
export function directoryProblem(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : 'not a directory';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return 'no such directory';
    if (code === 'ENOTDIR') return 'not a directory';
    if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
    return `cannot be read (${typeof code === 'string' ? code : String(error)})`;
  }
}
