import type { StdioOptions } from 'node:child_process';
import { nodeChildProcess } from '../util/builtins.js';
import { isTerminal, signalNumber } from '../util/legacy-binding.js';
import { spawnDirect } from '../process/direct-spawn.js';
import type { Readable } from 'node:stream';
import type { GuardChild, GuardExit, GuardSpawnOptions } from '@cordon/plugin-api';

/** Signals cordon passes on to the command while it runs. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/** How long cordon keeps relaying a command's stdout after it exited (bytes still in the pipe), ms. */
const RELAY_GRACE_MS = 200;

/** A command's status the way shells report it: its exit code, or 128 + the signal's number. */
export function shellStatus(code: number | null, signal: string | null): number {
  return code ?? 128 + (signal ? (signalNumber(signal) ?? 0) : 0);
}

/** Input of {@link spawnPassThrough}. */
export interface PassThroughOptions extends GuardSpawnOptions {
  readonly argv: readonly string[];
  /** Working directory; `undefined` keeps this process's (also when it was deleted and has no name any more). */
  readonly cwd: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  /**
   * Copy the command's stdout through this process instead of handing it the descriptor, to
   * learn whether its output ended with a newline ({@link PassThroughChild.stdoutEndsLine}); used
   * by `--json`, whose record must start on a line of its own.
   */
  readonly relayStdout?: boolean;
}

/** A started command, plus what the host alone needs. */
export interface PassThroughChild extends GuardChild {
  /** With `relayStdout`: whether the command's stdout was empty or ended with `\n` (resolves after its last byte); else always true. */
  readonly stdoutEndsLine: Promise<boolean>;
}

/**
 * Starts `[...prefix, ...argv]` with stdin, stdout and stderr inherited (the bytes never pass
 * through cordon, unless `relayStdout`) and passes signals sent to cordon on, so that each reaches
 * the command once:
 *
 * - stdin is a terminal: the command stays in cordon's process group, the terminal's foreground
 *   group, so it can read the terminal and gets Ctrl-C and Ctrl-\ from the terminal itself;
 *   cordon ignores SIGINT and SIGQUIT meanwhile (forwarding them would deliver them twice) and
 *   forwards SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 to the command.
 * - otherwise (an agent's shell tool, a pipeline, a service): the command gets a process group
 *   (a session) of its own, so a signal sent to cordon's process group reaches cordon alone, and
 *   cordon forwards all six signals to the command's group, once (a command sharing cordon's group
 *   would see a SIGTERM twice). The cost: a SIGKILL, which nobody can forward, no
 *   longer reaches the command through cordon's group.
 *
 * The handlers come off when the command exits. With `reportFd`, fd 3 is a pipe whose bytes
 * become {@link GuardChild.report}.
 *
 * Rejects with the spawn error (`ENOENT`, `EACCES` …) when the command cannot start.
 */
export function spawnPassThrough(options: PassThroughOptions): Promise<PassThroughChild> {
  const argv = [...(options.prefix ?? []), ...options.argv];
  // What `process.stdin.isTTY` says, without creating process.stdin: that stream would load
  // Node's file-stream modules (about 2 ms, `npm run bench:control`) and, on a pipe, make the
  // descriptor the command inherits non-blocking; nor node:tty, which loads net and stream.
  const terminal = isTerminal(0);
  if (!options.relayStdout && !options.reportFd) {
    // Nothing to read from the command: libuv's process handle alone, without child_process.
    try {
      const direct = spawnDirect({ file: argv[0]!, args: argv, cwd: options.cwd, env: options.env, detached: !terminal });
      if (direct) {
        const stop = forwardSignals(direct.pid, terminal);
        const exit = direct.exit.then(({ code, signal }): GuardExit => {
          stop();
          return { code, signal, exitCode: shellStatus(code, signal) };
        });
        return Promise.resolve({ pid: direct.pid, report: Promise.resolve(''), exit, stdoutEndsLine: Promise.resolve(true) });
      }
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return spawnChildProcess(argv, options, terminal);
}

/**
 * Passes the six {@link FORWARDED} signals cordon receives on to a started command (see
 * {@link spawnPassThrough} for which, and to whom); returns what takes the handlers off again.
 */
function forwardSignals(pid: number, terminal: boolean): () => void {
  const handlers = FORWARDED.map((signal) => {
    const fromTerminal = terminal && (signal === 'SIGINT' || signal === 'SIGQUIT');
    const forward = (): void => {
      if (fromTerminal) return;
      try {
        // Its own group when detached: the whole tree the command started gets it, as the
        // caller's group would have.
        process.kill(terminal ? pid : -pid, signal);
      } catch {
        // Already gone.
      }
    };
    process.on(signal, forward);
    return [signal, forward] as const;
  });
  return () => {
    for (const [s, f] of handlers) process.off(s, f);
  };
}

/** {@link spawnPassThrough} through `child_process`: when its output is read, or {@link spawnDirect} cannot start it here. */
function spawnChildProcess(argv: readonly string[], options: PassThroughOptions, terminal: boolean): Promise<PassThroughChild> {
  const out = options.relayStdout ? 'pipe' : 'inherit';
  const stdio: StdioOptions = options.reportFd ? ['inherit', out, 'inherit', 'pipe'] : ['inherit', out, 'inherit'];
  const child = nodeChildProcess().spawn(argv[0]!, argv.slice(1), { stdio, ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), env: options.env, detached: !terminal });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.off('error', reject);
      const pid = child.pid!;
      const stop = forwardSignals(pid, terminal);
      let stdoutEndsLine = Promise.resolve(true);
      if (child.stdout) {
        const stdout = child.stdout;
        stdoutEndsLine = new Promise((done) => {
          let last = 0x0a;
          stdout.on('data', (chunk: Buffer) => {
            if (chunk.length) last = chunk[chunk.length - 1]!;
            process.stdout.write(chunk);
          });
          stdout.once('close', () => done(last === 0x0a));
          // A background job the command left behind may hold its stdout open: once the command
          // has exited, cordon waits briefly for the rest, then stops relaying (that job's later
          // writes fail with EPIPE) rather than wait for the job.
          child.once('exit', () => {
            const late = setTimeout(() => {
              done(last === 0x0a);
              stdout.destroy();
            }, RELAY_GRACE_MS);
            stdout.once('close', () => clearTimeout(late));
          });
        });
      }
      const exit = new Promise<GuardExit>((done) => {
        child.once('exit', (code, signal) => {
          stop();
          done({ code, signal, exitCode: shellStatus(code, signal) });
        });
      });
      let report = Promise.resolve('');
      const pipe = child.stdio[3] as Readable | null | undefined;
      if (pipe) {
        report = new Promise((done) => {
          let text = '';
          pipe.setEncoding('utf8');
          pipe.on('data', (chunk: string) => (text += chunk));
          pipe.once('close', () => done(text));
          pipe.once('error', () => done(text));
        });
      }
      resolve({ pid, report, exit, stdoutEndsLine });
    });
  });
}
