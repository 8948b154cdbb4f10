import { nodeOs } from '../util/builtins.js';
import { legacyBinding, uvPipeBinding, type UvPipeHandle } from '../util/legacy-binding.js';

/**
 * What descriptor 0, 1 or 2 of the command is: this process's own (`inherit`), the null device
 * (`ignore`, opened by libuv in the child), or a new pipe this process reads (`pipe`, for 1 and 2
 * only), as `child_process`'s `stdio` values of the same names.
 */
export type DirectStdio = 'inherit' | 'ignore' | 'pipe';

/** Input of {@link spawnDirect}. */
export interface DirectSpawnOptions {
  /** The program, looked up on the child's `PATH` when it has no slash (as `child_process.spawn` does: libuv's `execvp`). */
  readonly file: string;
  /** Its whole argv, `argv[0]` included. */
  readonly args: readonly string[];
  /** Working directory; `undefined` keeps this process's. */
  readonly cwd: string | undefined;
  /**
   * The child's whole environment; `undefined` values are left out. Left out itself, the child
   * inherits this process's environment as it stands then: Node writes every change to
   * `process.env` through to the C environment libuv passes on (Node 20, 22 and 24 alike), so
   * this is `process.env` without copying it into a list of pairs first.
   */
  readonly env?: NodeJS.ProcessEnv;
  /** A session (and process group) of its own (`setsid`), as `spawn`'s `detached`. */
  readonly detached: boolean;
  /** Descriptors 0, 1 and 2 (default all `inherit`); `pipe` only for 1 and 2. */
  readonly stdio?: readonly [DirectStdio, DirectStdio, DirectStdio];
}

/**
 * The read end of a command's stdout or stderr (`pipe` in {@link DirectSpawnOptions.stdio}),
 * read from as soon as the command starts. Set the listeners before the event loop turns.
 */
export interface DirectPipe {
  /** Receives each chunk as it arrives; the Buffer is the caller's to keep. */
  onData: (chunk: Buffer) => void;
  /** Called once, after the handle has closed: at end of input, on a read error, or after {@link destroy}. */
  onEnd: () => void;
  /** Whether the pipe has ended and its handle closed ({@link onEnd} has been called). */
  readonly ended: boolean;
  /** Stops reading and closes this end (the command's next write fails with EPIPE); ends the pipe. */
  destroy(): void;
}

/** How a command started by {@link spawnDirect} ended, as `child_process`'s `exit` event says it. */
export interface DirectExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A command started by {@link spawnDirect}. */
export interface DirectChild {
  readonly pid: number;
  /** Resolves once, when the command has exited (the handle is closed by then). */
  readonly exit: Promise<DirectExit>;
  /** The read ends of descriptors 1 and 2 when they are `pipe`. */
  readonly stdout?: DirectPipe;
  readonly stderr?: DirectPipe;
}

/** The part of libuv's process handle (Node's `process_wrap` binding) used here. */
interface UvProcess {
  spawn(...args: unknown[]): number;
  /** Closes the handle; `onClose` runs once libuv has (HandleWrap::Close). */
  close(onClose?: () => void): void;
  pid?: number;
  onexit: (exitStatus: number, signal: string) => void;
}

/**
 * The two calling conventions of `Process.prototype.spawn` this code knows, by Node major:
 * 20 and 22 take `child_process`'s options object; 24 takes them as eight arguments with the
 * flags as a bit set from the binding's `constants` (nodejs/node `lib/internal/child_process.js`
 * of each line). A mismatch is not an exception but a failed native assertion that aborts the
 * process, so any other major (or one whose binding does not look as expected) gets `undefined`
 * and `child_process`. `npm run test:node22` and `test:node24` run the tests of both.
 */
type Convention = { readonly kind: 'options' } | { readonly kind: 'positional'; readonly detachedFlag: number };

let known: { Process: new () => UvProcess; convention: Convention } | null | undefined;

function processBinding(): { Process: new () => UvProcess; convention: Convention } | null {
  if (process.env.CORDON_DIRECT_SPAWN === 'off') return null;
  if (known !== undefined) return known;
  known = null;
  if (process.platform === 'win32') return known;
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== 20 && major !== 22 && major !== 24) return known;
  const binding = legacyBinding('process_wrap');
  const Process = binding?.Process;
  if (typeof Process !== 'function') return known;
  const flags = binding!.constants as Record<string, unknown> | undefined;
  if (major === 24) {
    const detachedFlag = flags?.kProcessFlagDetached;
    if (typeof detachedFlag === 'number') known = { Process: Process as new () => UvProcess, convention: { kind: 'positional', detachedFlag } };
  } else if (flags === undefined) {
    known = { Process: Process as new () => UvProcess, convention: { kind: 'options' } };
  }
  return known;
}

/**
 * Whether {@link spawnDirect} can start commands in this Node (else it returns `undefined`):
 * a known binding, and `CORDON_DIRECT_SPAWN` is not `off` (the escape hatch back to
 * `child_process` for every command cordon starts).
 */
export function canSpawnDirect(): boolean {
  return processBinding() !== null;
}

/** libuv's error number as its name (`-2` → `ENOENT` on Linux and macOS, where libuv errors are negated errnos). */
function errnoName(err: number): string {
  // node:os only for a start error: the fast `check` never loads it otherwise.
  for (const [name, value] of Object.entries(nodeOs().constants.errno)) if (value === -err) return name;
  return `E${-err}`;
}

/**
 * Starts a command through libuv's process handle, the one `child_process.spawn` is built on,
 * without loading `node:child_process` and the stream and socket modules it brings (about 3 ms
 * of CPU on a 2-core VM, `npm run bench:control`): `control run` stands before every shell call
 * an agent makes once `control guard` is on, and `cordon check` starts git twice per check.
 * Descriptors 0–2 are as `stdio` says (default: inherited); nothing else is passed.
 *
 * Returns `undefined` without starting anything where the binding is not one whose calling
 * convention is known (see {@link Convention}), `CORDON_DIRECT_SPAWN=off` is set, a pipe handle
 * cannot be had, or an argument or variable holds a NUL byte (`child_process` then gives its own
 * error). Throws, as `spawn`'s `error` event would carry it, an Error with `code` (`ENOENT`,
 * `EACCES` …), `errno`, `syscall` (`spawn <file>`), `path` and `spawnargs` when the command
 * cannot start.
 */
export function spawnDirect(options: DirectSpawnOptions): DirectChild | undefined {
  const uv = processBinding();
  if (!uv) return undefined;
  // No list: libuv's uv_spawn then leaves the child this process's `environ`.
  let envPairs: string[] | undefined;
  if (options.env) {
    envPairs = [];
    for (const key of Object.keys(options.env)) {
      const value = options.env[key];
      if (value !== undefined) envPairs.push(`${key}=${value}`);
    }
  }
  const strings = [options.file, ...options.args, ...(envPairs ?? []), options.cwd ?? ''];
  if (strings.some((s) => s.includes('\0'))) return undefined;
  const kinds = options.stdio ?? ['inherit', 'inherit', 'inherit'];
  if (kinds[0] === 'pipe') throw new TypeError('spawnDirect: stdin cannot be a pipe');
  const pipes = kinds.includes('pipe') ? uvPipeBinding() : undefined;
  if (kinds.includes('pipe') && !pipes) return undefined;
  const handles: Array<UvPipeHandle | undefined> = kinds.map((kind) => (kind === 'pipe' ? new pipes!.Pipe(pipes!.socketType) : undefined));
  // child_process's own shapes of these entries (lib/internal/child_process.js, getValidStdio).
  const stdio = kinds.map((kind, fd) => (kind === 'pipe' ? { type: 'pipe', readable: false, writable: true, handle: handles[fd] } : kind === 'ignore' ? { type: 'ignore' } : { type: 'fd', fd }));
  const handle = new uv.Process();
  let settle!: (exit: DirectExit) => void;
  const exit = new Promise<DirectExit>((resolve) => (settle = resolve));
  handle.onexit = (exitStatus, signal) => {
    // Settled once the handle is closed, so that a caller done with its children leaves nothing
    // active in the event loop (bin/run.cjs ends a fast route at once when nothing is).
    handle.close(() => settle(signal ? { code: null, signal: signal as NodeJS.Signals } : { code: exitStatus, signal: null }));
  };
  const args = [...options.args];
  const err =
    uv.convention.kind === 'options'
      ? handle.spawn({ file: options.file, args, cwd: options.cwd, envPairs, stdio, detached: options.detached })
      : handle.spawn(options.file, args, options.cwd, envPairs, stdio, options.detached ? uv.convention.detachedFlag : 0, undefined, undefined);
  if (err !== 0 || typeof handle.pid !== 'number') {
    handle.close();
    for (const pipe of handles) pipe?.close();
    const code = errnoName(err);
    throw Object.assign(new Error(`spawn ${options.file} ${code}`), { errno: err, code, syscall: `spawn ${options.file}`, path: options.file, spawnargs: args.slice(1) });
  }
  return {
    pid: handle.pid,
    exit,
    ...(handles[1] ? { stdout: readPipe(handles[1], pipes!) } : {}),
    ...(handles[2] ? { stderr: readPipe(handles[2], pipes!) } : {}),
  };
}

const ignoreRead = (): void => undefined;

/**
 * Starts reading `handle` (a pipe the command writes) and returns it as a {@link DirectPipe}.
 * Each read's ArrayBuffer is Node's fresh allocation for that read, so a Buffer over it needs no
 * copy (Node's own `onStreamRead` does the same). A read status below zero other than
 * end of input (`UV_EOF`) is a read error and ends the pipe as end of input does.
 */
function readPipe(handle: UvPipeHandle, uv: NonNullable<ReturnType<typeof uvPipeBinding>>): DirectPipe {
  const pipe: DirectPipe & { ended: boolean } = {
    onData: () => undefined,
    onEnd: () => undefined,
    ended: false,
    destroy: () => end(),
  };
  let ending = false;
  const end = (): void => {
    if (ending) return;
    ending = true;
    handle.onread = ignoreRead;
    handle.readStop();
    handle.close(() => {
      pipe.ended = true;
      pipe.onEnd();
    });
  };
  handle.onread = (buffer) => {
    const n = uv.state[uv.bytesIndex]!;
    if (n > 0 && buffer) pipe.onData(Buffer.from(buffer, uv.state[uv.offsetIndex]!, n));
    else if (n < 0) end();
  };
  if (handle.readStart() !== 0) queueMicrotask(end);
  return pipe;
}
