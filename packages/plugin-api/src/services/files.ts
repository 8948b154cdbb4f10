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

  /**
   * Why a file the user named for the plugin to write (a report, a log) must not be written, in
   * the words that follow the input's name in an error (`it is inside /r/.cordon, the envelope's
   * state directory, …`), with that directory; or undefined. A write that lands inside an
   * envelope's `.cordon/` directory (through `..` and symbolic links too) would make `cordon
   * check`, `status` and `arm` refuse the directory as someone else's. `-` is never refused. A
   * relative path is taken from the current directory. Optional: hosts before it was added lack it.
   */
  stateDirProblem?(path: string): { readonly why: string; readonly dir: string } | undefined;
}
