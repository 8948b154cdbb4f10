import { accessSync, constants } from 'node:fs';
import { directoryProblem } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../errors/index.js';

// One wording for the host's directory flags and plugins' own (the plugin API's, which they share).
export { directoryProblem };

/**
 * What keeps this process from listing and entering the existing directory `path`, in a few words
 * (`permission denied`, `cannot be read (ELOOP)`), or undefined when it can do both: `access(2)`
 * with read and search permission (`R_OK | X_OK`, for the process's real user). Says nothing
 * about whether `path` is a directory: ask {@link directoryProblem} first.
 */
export function directoryAccessProblem(path: string): string | undefined {
  try {
    accessSync(path, constants.R_OK | constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
    return `cannot be read (${code ?? String(error)})`;
  }
}

/**
 * `path` when it names an existing directory ({@link directoryProblem}); otherwise throws
 * `CORDON_BAD_INPUT` (exit 2) `<flag> "<path>": <why>`, e.g. `--project-dir "/x": no such
 * directory` (the path JSON-quoted, so that an empty one or a blank in it shows), with `details`
 * `{flag, path}`. The one check behind every flag that names a
 * directory which must exist (`--repo`, `--project-dir`: cli/directory-flag.ts), so that none of
 * them reads a file as a directory or creates a directory the user mistyped.
 */
export function requireDirectory(flag: string, path: string): string {
  const why = directoryProblem(path);
  if (why !== undefined) throw new CordonError(ERROR_CODES.BAD_INPUT, `${flag} ${JSON.stringify(path)}: ${why}`, { details: { flag, path } });
  return path;
}
