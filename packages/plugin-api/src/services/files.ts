/**
 * File-system checks lent to plugins (`api.services.files`), so that a plugin's flags are judged
 * and worded as the host's own are.
 */
export interface FileService {
  /**
   * What keeps `path` from being used as an existing directory, in a few words (`no such
   * directory`, `not a directory`, `permission denied`, `cannot be read (EIO)`), or undefined
   * when it is one: the check behind the host's `--repo` and `--project-dir`, and the plugin
   * API's own `directoryProblem` (which a plugin whose code is bundled, or which depends on the
   * plugin API at run time, may call directly). One `stat`, symbolic links followed; a relative
   * path is taken from the current directory.
   */
  directoryProblem(path: string): string | undefined;
}
