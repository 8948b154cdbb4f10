import { spawn, type ChildProcess } from 'node:child_process';
import { cutTextEnd } from '@cordon/plugin-api';
import { cannotStartCodex } from '../errors.js';

/**
 * The watchdog between the serve and `codex app-server`: a small Node process (run with `node -e`,
 * so it needs no file of its own, in a process group of its own) that starts the app-server in
 * another process group of its own and stops
 * that group (SIGTERM, SIGKILL after the grace period) as soon as its stdin — a pipe whose other
 * end only the serve holds — reaches end of file, or it gets SIGINT/SIGTERM/SIGHUP. The kernel
 * closes the pipe on every kind of serve exit, SIGKILL included, which Node alone cannot watch
 * for (it has no `prctl(PR_SET_PDEATHSIG)`).
 *
 * stdout carries one JSON object per line: `{"spawned":<pid>}`, `{"spawnError":"…"}`, then
 * `{"exited":<code|null>,"signal":<name|null>}`. The app-server's stderr passes through to the
 * watchdog's stderr. argv[1] is the JSON `{bin, args, graceMs}` (no secrets: tokens travel in
 * files or the environment).
 */
const WATCHDOG_SOURCE = `
const { spawn } = require('node:child_process');
const { bin, args, graceMs } = JSON.parse(process.argv[1]);
const say = (o) => { try { process.stdout.write(JSON.stringify(o) + '\\n'); } catch {} };
let stopping = false;
let child;
const early = () => { stopping = true; };
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, early);
child = spawn(bin, args, { detached: true, stdio: ['ignore', 'ignore', 'inherit'] });
const group = (sig) => { try { process.kill(-child.pid, sig); } catch { try { child.kill(sig); } catch {} } };
const stop = () => {
  if (stopping || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  stopping = true;
  group('SIGTERM');
  setTimeout(() => group('SIGKILL'), graceMs).unref();
};
child.once('spawn', () => {
  say({ spawned: child.pid });
  if (stopping) { stopping = false; stop(); }
});
child.once('error', (e) => { say({ spawnError: e.message }); process.exit(127); });
child.once('exit', (code, signal) => { say({ exited: code, signal }); process.exit(0); });
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) { process.off(s, early); process.on(s, stop); }
`;

/** How much of the end of the app-server's stderr is kept, UTF-16 units. */
const STDERR_TAIL_UNITS = 4096;

/** A watchdog-run app-server, as the serve sees it. */
export interface Watched {
  /** The watchdog process. */
  readonly watchdog: ChildProcess;
  /** The app-server's pid (also its process group id), once spawned. */
  readonly pid: Promise<number>;
  /** Resolves with a description of how the app-server ended (`code 3`, `signal SIGTERM`, `cannot start …`). */
  readonly ended: Promise<string>;
  /** The last 4,096 UTF-16 units of the app-server's stderr, whole characters only. */
  stderrTail(): string;
  /** Closes the watchdog's stdin (it stops the app-server) and resolves once the watchdog exited. */
  stop(): Promise<void>;
}

/** Starts `bin args…` under a watchdog (see {@link WATCHDOG_SOURCE}). */
export function startWatched(options: { bin: string; args: readonly string[]; env?: NodeJS.ProcessEnv; cwd?: string; graceMs?: number }): Watched {
  const graceMs = options.graceMs ?? 3000;
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG_SOURCE, JSON.stringify({ bin: options.bin, args: options.args, graceMs })], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    // A process group of its own: a terminal's SIGINT/SIGHUP reach the serve's group, and the serve
    // stops the app-server in order; the watchdog acts when the serve is gone (its pipe closes).
    detached: true,
  });
  // Both pipes are decoded as streams: a character the writer split across two reads stays whole.
  watchdog.stderr!.setEncoding('utf8');
  watchdog.stdout!.setEncoding('utf8');
  let tail = '';
  watchdog.stderr!.on('data', (chunk: string) => {
    // Cut where a character starts, so the tail never begins with the second half of a pair.
    tail = cutTextEnd(tail + chunk, STDERR_TAIL_UNITS);
  });
  // The serve never writes to the pipe; an EPIPE once the watchdog is gone is not an error.
  watchdog.stdin!.on('error', () => undefined);
  let resolvePid!: (pid: number) => void;
  let rejectPid!: (error: Error) => void;
  const pid = new Promise<number>((res, rej) => {
    resolvePid = res;
    rejectPid = rej;
  });
  pid.catch(() => undefined);
  let resolveEnded!: (how: string) => void;
  const ended = new Promise<string>((res) => (resolveEnded = res));
  let out = '';
  watchdog.stdout!.on('data', (chunk: string) => {
    out += chunk;
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      let event: { spawned?: number; spawnError?: string; exited?: number | null; signal?: string | null };
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof event.spawned === 'number') resolvePid(event.spawned);
      else if (event.spawnError !== undefined) {
        const problem = cannotStartCodex(options.bin, event.spawnError);
        rejectPid(new Error(problem));
        resolveEnded(problem);
      } else if ('exited' in event) resolveEnded(event.signal ? `signal ${event.signal}` : `code ${event.exited}`);
    }
  });
  const closed = new Promise<void>((res) => watchdog.once('close', () => res()));
  watchdog.once('error', (error) => {
    rejectPid(new Error(`cannot start the app-server watchdog: ${error.message}`));
    resolveEnded(`cannot start the app-server watchdog: ${error.message}`);
  });
  void closed.then(() => {
    rejectPid(new Error('the app-server watchdog exited'));
    resolveEnded(`watchdog exited (code ${watchdog.exitCode ?? watchdog.signalCode})`);
  });
  return {
    watchdog,
    pid,
    ended,
    stderrTail: () => tail,
    stop: async () => {
      watchdog.stdin!.end();
      const timer = setTimeout(() => watchdog.kill('SIGKILL'), graceMs + 2000);
      await closed;
      clearTimeout(timer);
    },
  };
}
