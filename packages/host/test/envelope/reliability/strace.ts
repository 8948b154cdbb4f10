import { execFileSync } from 'node:child_process';
import { CORDON_BIN, runProcess, type RunOptions, type RunResult } from '../../../../../test/support/cli.js';

/**
 * Fault injection for tests, through strace(1)'s `-e inject=`: the cordon process (its main
 * thread, where every state write happens; children and worker threads are not traced) gets an
 * error or a SIGKILL at the N-th call of a system call. Real processes, real file systems.
 */

/** True when strace is installed (the tests that need it are skipped otherwise). */
export const HAVE_STRACE = (() => {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Runs `cordon args` under strace with `inject` (e.g. `rename:error=EROFS`,
 * `rename:signal=KILL:when=2`); strace's own output is discarded. A SIGKILLed cordon reports
 * `signal` SIGKILL or exit code 137 (strace relays the tracee's death).
 */
export function cordonInjected(inject: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  const syscall = inject.split(':')[0]!;
  return runProcess(['strace', '-qq', '-o', '/dev/null', '-e', `trace=${syscall}`, '-e', `inject=${inject}`, process.execPath, CORDON_BIN, ...args], options);
}

/** True when a result is the death by SIGKILL that `signal=KILL` injects. */
export function wasKilled(result: RunResult): boolean {
  return result.signal === 'SIGKILL' || result.exitCode === 137;
}
