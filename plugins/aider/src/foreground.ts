import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

const ignore = (): void => undefined;

/**
 * Lends the terminal to `child` (spawned with `stdio: 'inherit'`, in this process's foreground
 * process group): SIGINT and SIGQUIT are ignored here, because the child gets Ctrl-C and Ctrl-\
 * from the terminal itself, and SIGTERM and SIGHUP sent to this process are passed on to it.
 * Returns the function that takes the handlers off again (safe to call twice).
 */
export function lendTerminal(child: ChildProcess): () => void {
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onTerm = forward('SIGTERM');
  const onHup = forward('SIGHUP');
  process.on('SIGINT', ignore);
  process.on('SIGQUIT', ignore);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  return () => {
    process.off('SIGINT', ignore);
    process.off('SIGQUIT', ignore);
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onHup);
  };
}

/** A child's exit status the way shells report it: its exit code, or 128 + the signal's number when a signal ended it. */
export function shellExitCode(code: number | null, signal: NodeJS.Signals | null): number {
  return code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}
