import { signalNumber } from '../util/legacy-binding.js';

/**
 * Signals cordon re-raises on itself when the command it ran died of one: the ones whose default
 * action ends a process without a core dump (signal(7)), plus SIGKILL. SIGUSR1 is left out (Node
 * starts its inspector on it), and so are the core-dumping ones (SIGQUIT, SIGSEGV, SIGABRT …):
 * `timeout` switches core dumps off before it re-raises, which Node cannot, so for those cordon
 * exits with 128 + the signal's number, as a shell reports them.
 */
const RERAISE: ReadonlySet<string> = new Set(['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGALRM', 'SIGUSR2', 'SIGPIPE', 'SIGKILL', 'SIGVTALRM', 'SIGPROF', 'SIGIO', 'SIGPWR', 'SIGSTKFLT']);

/** How a child ended: its exit code, or the signal that ended it. */
export interface ChildEnd {
  readonly code: number | null;
  readonly signal: string | null;
}

/**
 * Ends this process the way the command it ran ended, the convention of `env`, `nice` and
 * `timeout` (GNU coreutils `timeout` re-raises the child's signal on itself): with the command's
 * exit code, or by dying of the same signal, so a shell loop of `cordon … -- step` steps stops on
 * Ctrl-C (a POSIX shell aborts its loop only when the foreground job *died of* SIGINT; an exit
 * status of 130 reads as "the job handled it"). Call it last, after everything is written:
 * `process.exitCode` is set first (128 + the number), then every listener for the signal comes
 * off and the signal is sent to this process. A signal Node keeps ignoring (SIGPIPE) leaves the
 * exit code in place, and the process ends normally with it.
 */
export function endLike(end: ChildEnd, kill: (pid: number, signal: string) => void = (pid, signal) => process.kill(pid, signal)): void {
  if (end.signal === null) {
    process.exitCode = end.code ?? 1;
    return;
  }
  // Not node:os: the hook bundle imports this module through the host (util/legacy-binding.ts).
  process.exitCode = 128 + (signalNumber(end.signal) ?? 0);
  if (!RERAISE.has(end.signal)) return;
  process.removeAllListeners(end.signal);
  kill(process.pid, end.signal);
}
