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
  /** The command's whole environment; left out, it inherits this process's (`process.env` as it stands). */
  readonly env?: NodeJS.ProcessEnv;
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
 * Forwarding stops when the command exits ({@link SignalForwarder.stop}). With `reportFd`, fd 3 is a pipe whose bytes
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
  // The handlers go on before the fork: after it, every page this process writes first costs a
  // copy-on-write fault (`npm run bench:control`).
  const forwarder = forwardSignals(terminal);
  if (!options.relayStdout && !options.reportFd) {
    // Nothing to read from the command: libuv's process handle alone, without child_process.
    try {
      const direct = spawnDirect({ file: argv[0]!, args: argv, cwd: options.cwd, env: options.env, detached: !terminal });
      if (direct) {
        forwarder.started(direct.pid);
        const exit = direct.exit.then(({ code, signal }): GuardExit => {
          forwarder.stop();
          return { code, signal, exitCode: shellStatus(code, signal) };
        });
        return Promise.resolve({ pid: direct.pid, report: Promise.resolve(''), exit, stdoutEndsLine: Promise.resolve(true) });
      }
    } catch (error) {
      forwarder.stop();
      return Promise.reject(error);
    }
  }
  return spawnChildProcess(argv, options, terminal, forwarder);
}

/** What {@link forwardSignals} returns. */
export interface SignalForwarder {
  /** The command started as `pid`: signals that came while it started go to it now, later ones as they come. */
  started(pid: number): void;
  /**
   * Stops forwarding. When the command never started and no other command is being forwarded
   * to, the handlers come off and a signal that came meanwhile is raised on this process again:
   * it ends cordon as it would have without them (SIGUSR1 excepted, see there). After a start
   * the handlers stay on, inert, until a signal comes: then they come off and the signal is
   * raised again unless another listener took it, so it does what it would have done without
   * them. Taking six handlers off costs a `control run` more than leaving them to the process's
   * exit (`npm run bench:control`).
   */
  stop(): void;
}

/** One command being forwarded to: what the shared handlers call for each signal. */
type Forwarding = (signal: NodeJS.Signals) => void;

/** Forwarders started and not yet stopped, in the order they started. */
const forwarding = new Set<Forwarding>();

/**
 * The one handler per {@link FORWARDED} signal every forwarder of this process shares, while on.
 * Shared so that a process that runs many commands one after another (a library caller of
 * `runControlled`) keeps six listeners, not six per command left behind.
 */
let handlers: ReadonlyArray<readonly [NodeJS.Signals, () => void]> | undefined;

function putHandlersOn(): void {
  if (handlers) return;
  handlers = FORWARDED.map((signal) => {
    const handler = (): void => {
      if (forwarding.size > 0) {
        for (const forward of forwarding) forward(signal);
        return;
      }
      // Every forwarder stopped: as if the handlers had come off then, the signal goes to
      // whoever else listens (they heard this one already), else its default action.
      takeHandlersOff();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
}

function takeHandlersOff(): void {
  for (const [signal, handler] of handlers ?? []) process.off(signal, handler);
  handlers = undefined;
}

/**
 * Passes the six {@link FORWARDED} signals cordon receives on to the command it is starting (see
 * {@link spawnPassThrough} for which, and to whom), from before the command has a pid. Several
 * forwarders at once each get every signal. Exported for its tests.
 */
export function forwardSignals(terminal: boolean): SignalForwarder {
  let pid: number | undefined;
  const early: NodeJS.Signals[] = [];
  const send = (target: number, signal: NodeJS.Signals): void => {
    try {
      // Its own group when detached: the whole tree the command started gets it, as the
      // caller's group would have.
      process.kill(terminal ? target : -target, signal);
    } catch {
      // Already gone.
    }
  };
  const forward: Forwarding = (signal) => {
    // From the terminal, the command got it already (it is in the foreground group).
    if (terminal && (signal === 'SIGINT' || signal === 'SIGQUIT')) return;
    if (pid === undefined) early.push(signal);
    else send(pid, signal);
  };
  forwarding.add(forward);
  putHandlersOn();
  return {
    started(started) {
      pid = started;
      for (const signal of early.splice(0)) send(started, signal);
    },
    stop() {
      if (!forwarding.delete(forward) || pid !== undefined) return;
      if (forwarding.size === 0) takeHandlersOff();
      // Not SIGUSR1: without a handler Node answers it by opening its inspector on a TCP port.
      const ending = early.find((signal) => signal !== 'SIGUSR1');
      if (ending) process.kill(process.pid, ending);
    },
  };
}

/** {@link spawnPassThrough} through `child_process`: when its output is read, or {@link spawnDirect} cannot start it here. */
function spawnChildProcess(argv: readonly string[], options: PassThroughOptions, terminal: boolean, forwarder: SignalForwarder): Promise<PassThroughChild> {
  const out = options.relayStdout ? 'pipe' : 'inherit';
  const stdio: StdioOptions = options.reportFd ? ['inherit', out, 'inherit', 'pipe'] : ['inherit', out, 'inherit'];
  let child: ReturnType<ReturnType<typeof nodeChildProcess>['spawn']>;
  try {
    child = nodeChildProcess().spawn(argv[0]!, argv.slice(1), { stdio, ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), ...(options.env ? { env: options.env } : {}), detached: !terminal });
  } catch (error) {
    forwarder.stop();
    throw error;
  }
  return new Promise((resolve, reject) => {
    const failed = (error: Error): void => {
      forwarder.stop();
      reject(error);
    };
    child.once('error', failed);
    child.once('spawn', () => {
      child.off('error', failed);
      const pid = child.pid!;
      forwarder.started(pid);
      let stdoutEndsLine = Promise.resolve(true);
      if (child.stdout) {
        const stdout = child.stdout;
        stdoutEndsLine = new Promise((done) => {
          let last = 0x0a;
          stdout.on('data', (chunk: Buffer) => {
            if (chunk.length) last = chunk[chunk.length - 1]!;
            process.stdout.write(chunk);
          });
          // A reader that closed cordon's stdout (`| head`: EPIPE, ECONNRESET on a socket), or a
          // stdout that failed (a full disk), closes the command's too: its next write fails
          // (SIGPIPE) as it would have without cordon between them, instead of cordon reading and
          // dropping its output for as long as it writes.
          const readerGone = (): void => {
            stdout.destroy();
          };
          process.stdout.on('error', readerGone);
          stdout.once('close', () => {
            process.stdout.off('error', readerGone);
            done(last === 0x0a);
          });
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
          forwarder.stop();
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
