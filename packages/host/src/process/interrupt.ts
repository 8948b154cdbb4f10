/**
 * What a cordon process must do before an interrupt ends it: Ctrl-C (SIGINT), a CI
 * cancellation or `kill` (SIGTERM), a closed terminal (SIGHUP). Commands cordon starts in a
 * process group of their own (verifiers, git) never see a signal sent to cordon's group, and
 * its private directories live in the system temp directory: without this, an interrupted
 * `check` left its verifier running (`npm test` for minutes) and its private git directory
 * behind.
 *
 * Registered cleanups run on the first of these signals: those of `'processes'` first (ending
 * process groups; each may take the grace its killer allows), then those of `'files'`. Then
 * the signal is raised again without handlers, so cordon ends as the signal ends it (exit status
 * 128 + n to its shell), unless another listener for that signal is installed (`run` and
 * `resume` trap interrupts themselves: they decide what happens next). Later signals while
 * the cleanups run are absorbed. The handlers are installed only while a cleanup is registered.
 */

/** The signals that interrupt a cordon command. */
export const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** When a cleanup runs: process groups are ended before files are removed. */
export type CleanupOrder = 'processes' | 'files';

const registered = { processes: new Set<() => unknown>(), files: new Set<() => unknown>() };
let installed = false;
let interrupting = false;
/** Set while an interrupt is handled that this module will end the process with (no other listener decides). */
let ending = false;

/**
 * Runs `cleanup` if an interrupt comes before the returned function is called (which
 * unregisters it). A cleanup may return a promise (awaited, failures ignored) and must not throw
 * anything it cares about.
 */
export function onInterrupt(cleanup: () => unknown, order: CleanupOrder = 'processes'): () => void {
  registered[order].add(cleanup);
  if (!installed && !interrupting) {
    installed = true;
    for (const signal of INTERRUPTS) process.on(signal, handle);
  }
  return () => {
    registered[order].delete(cleanup);
    if (installed && !interrupting && registered.processes.size === 0 && registered.files.size === 0) uninstall();
  };
}

function uninstall(): void {
  installed = false;
  for (const signal of INTERRUPTS) process.off(signal, handle);
}

function handle(signal: NodeJS.Signals): void {
  if (interrupting) return;
  interrupting = true;
  // Another listener (run/resume's trap) decides how the process ends.
  const decidedElsewhere = process.listenerCount(signal) > 1;
  ending = !decidedElsewhere;
  const take = (set: Set<() => unknown>) => {
    const all = [...set];
    set.clear();
    return all;
  };
  const run = (cleanups: Array<() => unknown>) =>
    Promise.allSettled(
      cleanups.map((cleanup) => {
        try {
          return cleanup();
        } catch {
          return undefined;
        }
      }),
    );
  void run(take(registered.processes))
    .then(() => run(take(registered.files)))
    .then(() => {
      uninstall();
      interrupting = false;
      if (!decidedElsewhere) process.kill(process.pid, signal);
    });
}

/**
 * Resolves at once, unless an interrupt is being handled that will end this process (no
 * `run`/`resume` trap decides instead): then it never settles, and the handler ends the process
 * by the signal once the cleanups have run. A command awaits it before it reports or saves a
 * result, which after an interrupt would describe the interruption, not the work: the verifier
 * the interrupt ended reads as a failed verifier, and a check would print and save a false
 * "rejected" where docs/envelopes.md promises that nothing of the envelope changes.
 */
export function haltIfInterrupted(): Promise<void> {
  return ending ? new Promise<void>(() => undefined) : Promise.resolve();
}
