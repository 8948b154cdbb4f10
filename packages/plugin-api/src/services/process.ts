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
}
