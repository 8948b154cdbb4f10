import { CordonError, ERROR_CODES } from '../errors/index.js';
import { spawnDirect, type DirectChild, type DirectExit } from '../process/direct-spawn.js';
import { nodeChildProcess } from '../util/builtins.js';
import { monotonicMs } from '../util/clock.js';
import { onInterrupt } from '../process/interrupt.js';
import { describeStartFailure, startFailureText } from '../process/start-failure.js';

/**
 * Managed child processes, shared by git, verifiers and (later) agent runners
 * (the BEKO2210/SkillQuarry cordon, with Node's specifics):
 *
 * - started by argv, never through a shell; stdin is /dev/null;
 * - on POSIX in a new session and process group (`detached`), so a timeout or an output
 *   overflow kills the whole group: SIGTERM, then SIGKILL after {@link KILL_GRACE_MS};
 * - each output stream counts its bytes; the first `keepBytes` are kept; byte `outputCap + 1`
 *   marks the run `outputLimited` and kills the group, and that stream's later bytes are
 *   drained unread (its count and tail end at byte `outputCap + 1`);
 * - if the pipes are still open {@link CLOSE_WAIT_MS} after the child exited (a grandchild
 *   holds them), the group is killed and the result says `outputNotClosed`;
 * - without `input`, started through libuv's process handle and read through its pipe handles
 *   (src/process/direct-spawn.ts) where this Node's binding is known, else through
 *   `child_process`: the same process, descriptors and results either way, without loading
 *   `child_process` and Node's stream and socket modules for the fast `cordon check`'s git
 *   commands (`npm run bench:envelope`).
 */

/** TERM → KILL grace when killing a process group, in ms (the BEKO2210/SkillQuarry cordon: 0.4 s). */
export const KILL_GRACE_MS = 400;
/** How long the pipes may stay open after the child exited, in ms (the BEKO2210/SkillQuarry cordon: 1 s). */
export const CLOSE_WAIT_MS = 1000;

/** Options of {@link runManaged}. */
export interface ManagedOptions {
  /** Working directory. */
  readonly cwd: string;
  /** Full environment of the child (not merged). */
  readonly env: NodeJS.ProcessEnv;
  /** Wall-clock limit in ms; a positive finite number. Omit for none. */
  readonly timeoutMs?: number;
  /** Bytes allowed per output stream; a positive safe integer. Omit for unlimited. */
  readonly outputCap?: number;
  /** Bytes kept per stream in the result (default: `outputCap`, else 64 KiB). */
  readonly keepBytes?: number;
  /**
   * Bytes kept from the end of each stream as well (default 0): the last bytes after the first
   * `keepBytes`, so a test runner's summary at the end survives a long output.
   */
  readonly keepTailBytes?: number;
  /** Receives every stdout chunk as it arrives (streaming consumers such as git parsers). */
  readonly onStdout?: (chunk: Buffer) => void;
  /** Receives every stderr chunk as it arrives (an agent attempt's status line shows its last line). */
  readonly onStderr?: (chunk: Buffer) => void;
  /** Bytes written to stdin before it is closed; default: stdin is /dev/null. */
  readonly input?: Buffer | string;
  /** Called once the child has a pid (agent runners record it and supervise its process tree). */
  readonly onSpawn?: (child: ManagedChild) => void;
}

/**
 * A started managed child as {@link ManagedOptions.onSpawn} hands it out: its pid, whether it
 * has ended, and a signal to the child alone. A `ChildProcess` is one; so is the direct route's.
 */
export interface ManagedChild {
  readonly pid?: number | undefined;
  /** Exit code once it exited normally, else null. */
  readonly exitCode: number | null;
  /** The signal that ended it, else null. */
  readonly signalCode: NodeJS.Signals | null;
  /** Sends `signal` (default SIGTERM) to the child alone; false when it could not be sent. */
  kill(signal?: NodeJS.Signals): boolean;
}

/** What one managed run produced. */
export interface ManagedResult {
  /** Exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, if any. */
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly outputLimited: boolean;
  /** The pipes stayed open after exit (a grandchild held them); the group was killed. */
  readonly outputNotClosed: boolean;
  /** The first `keepBytes` of each stream. */
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** The last `keepTailBytes` of each stream that came after the first `keepBytes` (empty when the stream fitted). */
  readonly stdoutTail: Buffer;
  readonly stderrTail: Buffer;
  /** Bytes seen per stream (may exceed what was kept); at most `outputCap + 1` with a cap. */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** Wall time from spawn to close, in ms. */
  readonly durationMs: number;
}

/** True when the child ran to completion with exit 0 inside its limits. */
export function succeeded(result: ManagedResult): boolean {
  return result.exitCode === 0 && !result.timedOut && !result.outputLimited && !result.outputNotClosed;
}

/**
 * Runs `argv` as a managed child. Rejects with `CORDON_PROCESS_ERROR` when the executable
 * cannot be started (`cannot start 'x': …`) or when `timeoutMs`/`outputCap`/`keepBytes` are
 * invalid; otherwise resolves, whatever the exit status.
 */
export function runManaged(argv: readonly string[], options: ManagedOptions): Promise<ManagedResult> {
  try {
    validateLimits(options);
  } catch (error) {
    return Promise.reject(error);
  }
  if (argv.length === 0 || argv[0] === '') return Promise.reject(new CordonError(ERROR_CODES.PROCESS_ERROR, 'cannot start a command with an empty executable name'));
  const keep = options.keepBytes ?? options.outputCap ?? 64 * 1024;
  // Not `performance.now()`: its first use loads perf_hooks, on every git command of the fast `check`.
  const started = monotonicMs();
  return new Promise<ManagedResult>((resolve, reject) => {
    let proc: StartedProcess;
    try {
      proc = startProcess(argv, options);
    } catch (error) {
      reject(startError(argv[0]!, error, options));
      return;
    }
    const { child } = proc;
    const out = collector(keep, options.keepTailBytes);
    const err = collector(keep, options.keepTailBytes);
    let timedOut = false;
    let outputLimited = false;
    let outputNotClosed = false;
    let exited = false;
    let killing: Promise<void> | undefined;
    let timer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;
    let exitInfo: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };

    const kill = () => {
      killing ??= killGroup(child, () => exited);
      return killing;
    };
    // Its own process group sees no signal sent to cordon's: an interrupt ends it first.
    const release = onInterrupt(kill);
    const cap = options.outputCap;
    const onData = (c: ReturnType<typeof collector>, forward?: (chunk: Buffer) => void) => (chunk: Buffer) => {
      // A stream past its cap is drained (the child is being killed) but nothing more of it is
      // kept or counted: what the result holds of it is its first `outputCap + 1` bytes, however
      // much the child wrote before the signal reached it.
      if (cap !== undefined && c.total > cap) return;
      const part = cap !== undefined && c.total + chunk.length > cap + 1 ? chunk.subarray(0, cap + 1 - c.total) : chunk;
      c.add(part);
      if (forward && !outputLimited) forward(part);
      if (cap !== undefined && c.total > cap && !outputLimited) {
        outputLimited = true;
        kill();
      }
    };
    proc.onOutput(onData(out, options.onStdout), onData(err, options.onStderr));
    if (options.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, options.timeoutMs);
    }
    proc.onError((error) => {
      if (timer) clearTimeout(timer);
      release();
      reject(startError(argv[0]!, error, options));
    });
    proc.onExit((code, signal) => {
      exited = true;
      exitInfo = { code, signal };
      if (timer) clearTimeout(timer);
      // Armed after this turn's callbacks: a child whose pipes had ended by its exit (git's, as a
      // rule) finishes first and never arms it, and `check` then sets no timer at all, whose
      // first use costs Node's timer lists compiled from source (`npm run bench:envelope`).
      queueMicrotask(() => {
        if (done) return;
        closeTimer = setTimeout(() => {
          outputNotClosed = true;
          signalGroup(child, 'SIGKILL');
          proc.destroyOutput();
          finish();
        }, CLOSE_WAIT_MS);
      });
    });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      if (closeTimer) clearTimeout(closeTimer);
      release();
      resolve({
        exitCode: exitInfo.code,
        signal: exitInfo.signal,
        timedOut,
        outputLimited,
        outputNotClosed,
        stdout: out.kept(),
        stderr: err.kept(),
        stdoutTail: out.tail(),
        stderrTail: err.tail(),
        stdoutBytes: out.total,
        stderrBytes: err.total,
        durationMs: monotonicMs() - started,
      });
    };
    proc.onClose((code, signal) => {
      if (!exited) exitInfo = { code, signal };
      exited = true;
      finish();
    });
    if (child.pid !== undefined) options.onSpawn?.(child);
  });
}

/**
 * One started child as {@link runManaged} drives it, whichever way it was started. Listeners are
 * set once, right after the start, before the event loop turns.
 */
interface StartedProcess {
  readonly child: ManagedChild;
  /** Receives the chunks of stdout and of stderr. */
  onOutput(stdout: (chunk: Buffer) => void, stderr: (chunk: Buffer) => void): void;
  /** The child could not start after all (child_process reports some start errors late). */
  onError(listener: (error: Error) => void): void;
  /** The child exited (its pipes may still be open). */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** The child exited and both output pipes have ended. */
  onClose(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** Stops reading and closes both output pipes. */
  destroyOutput(): void;
}

/**
 * Starts `argv` as {@link runManaged} describes: directly when nothing is written to its stdin
 * and {@link spawnDirect} can, else through `child_process`. Throws a start error of the direct
 * route; `child_process`'s arrive through `onError`.
 */
function startProcess(argv: readonly string[], options: ManagedOptions): StartedProcess {
  const detached = process.platform !== 'win32';
  if (options.input === undefined) {
    const direct = spawnDirect({ file: argv[0]!, args: argv, cwd: options.cwd, env: options.env, detached, stdio: ['ignore', 'pipe', 'pipe'] });
    if (direct) return directProcess(direct);
  }
  const child = nodeChildProcess().spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    detached,
    shell: false,
    windowsHide: true,
  });
  if (options.input !== undefined) {
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(options.input);
  }
  return {
    child,
    onOutput(stdout, stderr) {
      child.stdout!.on('data', stdout);
      child.stderr!.on('data', stderr);
    },
    onError(listener) {
      child.once('error', (error) => {
        if (child.pid === undefined) listener(error);
      });
    },
    onExit: (listener) => child.once('exit', listener),
    onClose(listener) {
      child.once('close', (code, signal) => {
        if (child.pid !== undefined) listener(code, signal);
      });
    },
    destroyOutput() {
      child.stdout?.destroy();
      child.stderr?.destroy();
    },
  };
}

/** A {@link StartedProcess} over a command {@link spawnDirect} started with stdout and stderr piped. */
function directProcess(direct: DirectChild): StartedProcess {
  const { pid, exit } = direct;
  const stdout = direct.stdout!;
  const stderr = direct.stderr!;
  const child = {
    pid,
    exitCode: null as number | null,
    signalCode: null as NodeJS.Signals | null,
    kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
      if (child.exitCode !== null || child.signalCode !== null) return false;
      try {
        process.kill(pid, signal);
        return true;
      } catch {
        return false;
      }
    },
  };
  let ended: DirectExit | undefined;
  let onClose: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;
  let onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;
  // 'close' as child_process emits it: after the exit and the end of both pipes.
  const maybeClose = (): void => {
    if (ended && stdout.ended && stderr.ended) onClose?.(ended.code, ended.signal);
  };
  void exit.then((end) => {
    child.exitCode = end.code;
    child.signalCode = end.signal;
    ended = end;
    onExit?.(end.code, end.signal);
    maybeClose();
  });
  stdout.onEnd = maybeClose;
  stderr.onEnd = maybeClose;
  return {
    child,
    onOutput(out, err) {
      stdout.onData = out;
      stderr.onData = err;
    },
    onError: () => undefined,
    onExit: (listener) => (onExit = listener),
    onClose: (listener) => (onClose = listener),
    destroyOutput() {
      stdout.destroy();
      stderr.destroy();
    },
  };
}

/**
 * Kills `child`'s process group: SIGTERM, then SIGKILL after {@link KILL_GRACE_MS} unless the
 * leader has exited. A group that is already gone is a no-op.
 */
export async function killGroup(child: ManagedChild, hasExited: () => boolean = () => child.exitCode !== null || child.signalCode !== null): Promise<void> {
  signalGroup(child, 'SIGTERM');
  const deadline = Date.now() + KILL_GRACE_MS;
  while (!hasExited() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  // Grandchildren may ignore TERM even when the leader is gone: KILL the group regardless.
  signalGroup(child, 'SIGKILL');
}

/** Sends `signal` to the child's process group (POSIX) or the child (Windows); ignores ESRCH. */
export function signalGroup(child: ManagedChild, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Keeps the first `keep` bytes of a stream and the last `keepTail` bytes after them. */
function collector(keep: number, keepTail = 0) {
  const chunks: Buffer[] = [];
  let kept = 0;
  // The tail: chunks after the head, trimmed from the front whenever they exceed twice the limit.
  let tail: Buffer[] = [];
  let tailBytes = 0;
  return {
    total: 0,
    add(chunk: Buffer) {
      this.total += chunk.length;
      let rest = chunk;
      if (kept < keep) {
        const part = chunk.length <= keep - kept ? chunk : chunk.subarray(0, keep - kept);
        chunks.push(part);
        kept += part.length;
        rest = chunk.subarray(part.length);
      }
      if (keepTail > 0 && rest.length > 0) {
        tail.push(rest);
        tailBytes += rest.length;
        if (tailBytes > 2 * keepTail) {
          const joined = Buffer.concat(tail).subarray(-keepTail);
          tail = [joined];
          tailBytes = joined.length;
        }
      }
    },
    kept: () => Buffer.concat(chunks),
    tail: () => {
      const joined = Buffer.concat(tail);
      return joined.length > keepTail ? joined.subarray(-keepTail) : joined;
    },
  };
}

function validateLimits(options: ManagedOptions): void {
  const bad = (what: string, value: unknown) => new CordonError(ERROR_CODES.PROCESS_ERROR, `invalid ${what}: ${String(value)}`);
  if (options.timeoutMs !== undefined && (typeof options.timeoutMs !== 'number' || !Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)) throw bad('timeout (ms)', options.timeoutMs);
  for (const [what, value] of [['output cap (bytes)', options.outputCap], ['kept bytes', options.keepBytes], ['kept tail bytes', options.keepTailBytes]] as const) {
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)) throw bad(what, value);
  }
}

function startError(file: string, error: unknown, options: ManagedOptions): CordonError {
  const failure = describeStartFailure(file, error, { cwd: options.cwd, env: options.env });
  return new CordonError(ERROR_CODES.PROCESS_ERROR, startFailureText(file, failure).replace(/\s+/g, ' ').trim(), { cause: error, details: { file, errno: failure.code } });
}
