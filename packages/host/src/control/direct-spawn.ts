import { constants } from 'node:os';
import { legacyBinding } from '../util/legacy-binding.js';

/** Input of {@link spawnDirect}. */
export interface DirectSpawnOptions {
  /** The program, looked up on the child's `PATH` when it has no slash (as `child_process.spawn` does: libuv's `execvp`). */
  readonly file: string;
  /** Its whole argv, `argv[0]` included. */
  readonly args: readonly string[];
  /** Working directory; `undefined` keeps this process's. */
  readonly cwd: string | undefined;
  /** The child's whole environment; `undefined` values are left out. */
  readonly env: NodeJS.ProcessEnv;
  /** A session (and process group) of its own (`setsid`), as `spawn`'s `detached`. */
  readonly detached: boolean;
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
}

/** The part of libuv's process handle (Node's `process_wrap` binding) used here. */
interface UvProcess {
  spawn(...args: unknown[]): number;
  close(): void;
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

/** Whether {@link spawnDirect} can start commands in this Node (else it returns `undefined`). */
export function canSpawnDirect(): boolean {
  return processBinding() !== null;
}

/** libuv's error number as its name (`-2` → `ENOENT` on Linux and macOS, where libuv errors are negated errnos). */
function errnoName(err: number): string {
  for (const [name, value] of Object.entries(constants.errno)) if (value === -err) return name;
  return `E${-err}`;
}

/**
 * Starts a command with stdin, stdout and stderr inherited (descriptors 0–2 as they are, nothing
 * else passed) through libuv's process handle, the one `child_process.spawn` is built on, without
 * loading `node:child_process` and the stream and socket modules it brings (about 3 ms of CPU on
 * a 2-core VM, `npm run bench:control`): `control run` stands before every shell call an agent
 * makes once `control guard` is on.
 *
 * Returns `undefined` without starting anything where the binding is not one whose calling
 * convention is known (see {@link Convention}), or an argument or variable holds a NUL byte
 * (`child_process` then gives its own error). Throws, as `spawn`'s `error` event would carry it,
 * an Error with `code` (`ENOENT`, `EACCES` …), `errno`, `syscall` (`spawn <file>`), `path` and
 * `spawnargs` when the command cannot start.
 */
export function spawnDirect(options: DirectSpawnOptions): DirectChild | undefined {
  const uv = processBinding();
  if (!uv) return undefined;
  const envPairs: string[] = [];
  for (const key of Object.keys(options.env)) {
    const value = options.env[key];
    if (value !== undefined) envPairs.push(`${key}=${value}`);
  }
  const strings = [options.file, ...options.args, ...envPairs, options.cwd ?? ''];
  if (strings.some((s) => s.includes('\0'))) return undefined;
  const stdio = [0, 1, 2].map((fd) => ({ type: 'fd', fd }));
  const handle = new uv.Process();
  let settle!: (exit: DirectExit) => void;
  const exit = new Promise<DirectExit>((resolve) => (settle = resolve));
  handle.onexit = (exitStatus, signal) => {
    handle.close();
    settle(signal ? { code: null, signal: signal as NodeJS.Signals } : { code: exitStatus, signal: null });
  };
  const args = [...options.args];
  const err =
    uv.convention.kind === 'options'
      ? handle.spawn({ file: options.file, args, cwd: options.cwd, envPairs, stdio, detached: options.detached })
      : handle.spawn(options.file, args, options.cwd, envPairs, stdio, options.detached ? uv.convention.detachedFlag : 0, undefined, undefined);
  if (err !== 0 || typeof handle.pid !== 'number') {
    handle.close();
    const code = errnoName(err);
    throw Object.assign(new Error(`spawn ${options.file} ${code}`), { errno: err, code, syscall: `spawn ${options.file}`, path: options.file, spawnargs: args.slice(1) });
  }
  return { pid: handle.pid, exit };
}
