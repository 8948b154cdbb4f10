/**
 * Process helpers lent to plugins (`api.services.process`), so every command that runs another
 * one ends the same way.
 */
export interface ProcessService {
  /**
   * Ends this process the way a command it ran ended (the convention of `env`, `nice` and GNU
   * `timeout`): its exit code, or dying of the same signal (SIGINT, SIGTERM, SIGHUP …; a
   * core-dumping signal gives 128 + its number instead), so a shell loop stops on Ctrl-C. Call it
   * last, after all output is written.
   */
  endLike(end: { readonly code: number | null; readonly signal: string | null }): void;

  /**
   * Why a command could not start, in the words every cordon command uses for it: `error` is what
   * starting `file` threw or emitted (a Node spawn error, `code` `ENOENT`, `EACCES` …), `where`
   * the working directory and environment it was started with (default this process's). It looks
   * at the file system (the system's code alone cannot tell a directory from a file without
   * execute permission), so call it only after a start failed. `message` reads `cannot start
   * 'x': not found on PATH` (`no such file`, `is a directory`, `not executable`, `permission
   * denied`, `not an executable format` …); `status` is what a shell exits with for it: 127 when
   * the command was not found, 126 when it was found but cannot be executed.
   */
  describeStartFailure(file: string, error: unknown, where?: StartPlace): StartFailureReport;

  /**
   * Why `file` would not start if it were started now, looked at without starting it (the same
   * words and status as {@link describeStartFailure}), or `undefined` when, as far as the file
   * system tells, it would: a bare name is looked up in `where.env`'s `PATH`. For what a command
   * says before it starts one (`cordon wrap` names its session only for a command that starts);
   * only a start decides. Optional: a host older than this method lends none.
   */
  startProblem?(file: string, where?: StartPlace): StartFailureReport | undefined;
}

/** Where a command was started (see {@link ProcessService.describeStartFailure}). */
export interface StartPlace {
  /** Its working directory; a relative command path is taken from it. */
  readonly cwd?: string;
  /** Its environment, whose `PATH` a bare command name is looked up in. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What {@link ProcessService.describeStartFailure} says. */
export interface StartFailureReport {
  /** `cannot start '<file>': <why>`, one line. */
  readonly message: string;
  /** 127 (not found) or 126 (found, cannot be executed). */
  readonly status: 126 | 127;
}
