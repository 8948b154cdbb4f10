import { spawn, type StdioOptions } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import type { GuardChild, GuardExit, GuardSpawnOptions } from '@cordon/plugin-api';

/** Signals cordon passes on to the command while it runs. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/** A command's status the way shells report it: its exit code, or 128 + the signal's number. */
export function shellStatus(code: number | null, signal: string | null): number {
  return code ?? 128 + (signal ? (constants.signals[signal as NodeJS.Signals] ?? 0) : 0);
}

/** Input of {@link spawnPassThrough}. */
export interface PassThroughOptions extends GuardSpawnOptions {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Starts `[...prefix, ...argv]` with stdin, stdout and stderr inherited (the bytes never pass
 * through cordon) and forwards SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 sent to cordon; SIGINT and
 * SIGQUIT too unless stdin is a terminal (then the terminal already sends them to the command,
 * which shares cordon's foreground process group, and forwarding would deliver them twice;
 * cordon ignores them and waits for the command).
 * The handlers come off when the command exits. With `reportFd`, fd 3 is a pipe whose bytes
 * become {@link GuardChild.report}.
 *
 * Rejects with the spawn error (`ENOENT`, `EACCES` …) when the command cannot start.
 */
export function spawnPassThrough(options: PassThroughOptions): Promise<GuardChild> {
  const argv = [...(options.prefix ?? []), ...options.argv];
  const stdio: StdioOptions = options.reportFd ? ['inherit', 'inherit', 'inherit', 'pipe'] : 'inherit';
  const child = spawn(argv[0]!, argv.slice(1), { stdio, cwd: options.cwd, env: options.env });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.off('error', reject);
      const terminal = process.stdin.isTTY === true;
      const handlers = FORWARDED.map((signal) => {
        // On a terminal cordon still catches SIGINT and SIGQUIT, so Ctrl-C ends the command and
        // cordon then reports its status, instead of ending cordon first.
        const fromTerminal = terminal && (signal === 'SIGINT' || signal === 'SIGQUIT');
        const forward = (): void => {
          if (!fromTerminal) child.kill(signal);
        };
        process.on(signal, forward);
        return [signal, forward] as const;
      });
      const exit = new Promise<GuardExit>((done) => {
        child.once('exit', (code, signal) => {
          for (const [s, f] of handlers) process.off(s, f);
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
      resolve({ pid: child.pid!, report, exit });
    });
  });
}
