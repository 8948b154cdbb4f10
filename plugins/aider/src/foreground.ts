import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

const ignore = (): void => undefined;

/**
 * Lends the terminal to `child` (spawned with `stdio: 'inherit'`). With a terminal on stdin the
 * child is in this process's foreground process group and gets Ctrl-C and Ctrl-\ from the
 * terminal itself, so SIGINT and SIGQUIT are ignored here. Without one (`ownGroup`: the child was
 * spawned `detached`, in a process group of its own, so a signal sent to this process's group
 * reaches it once, through here) SIGINT and SIGQUIT are passed on like the rest. SIGTERM and SIGHUP
 * are always passed on. Returns the function that takes the handlers off again (safe to call twice).
 */
export function lendTerminal(child: ChildProcess, ownGroup = false): () => void {
  const forward = (signal: NodeJS.Signals) => () => {
    try {
      if (ownGroup && child.pid !== undefined) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // Already gone.
    }
  };
  const onInt = ownGroup ? forward('SIGINT') : ignore;
  const onQuit = ownGroup ? forward('SIGQUIT') : ignore;
  const onTerm = forward('SIGTERM');
  const onHup = forward('SIGHUP');
  process.on('SIGINT', onInt);
  process.on('SIGQUIT', onQuit);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGQUIT', onQuit);
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onHup);
  };
}

/** A child's exit status the way shells report it: its exit code, or 128 + the signal's number when a signal ended it. */
export function shellExitCode(code: number | null, signal: NodeJS.Signals | null): number {
  return code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}
