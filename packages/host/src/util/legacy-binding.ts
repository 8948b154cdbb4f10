import { legacyBinding } from '@cordon/plugin-api/legacy-binding';

// `legacyBinding` and `isTerminal` live in the plugin API (its legacy-binding module, which
// imports nothing), shared with the pcodx plugin's fast commands; re-exported here for the host.
export { isTerminal, legacyBinding } from '@cordon/plugin-api/legacy-binding';

/**
 * The number of signal `name` on this platform (`SIGTERM` → 15 on Linux), as
 * `os.constants.signals` says, read from Node's `constants` binding: `node:os` costs a `control
 * run` about 0.5 ms to load, for two numbers (`npm run bench:control`). `undefined` for a name
 * the platform lacks. Falls back to `node:os` where the binding is not there.
 */
export function signalNumber(name: string): number | undefined {
  const signals: Readonly<Record<string, number>> = (legacyBinding('constants')?.os as { signals?: Record<string, number> } | undefined)?.signals ?? (process.getBuiltinModule('node:os') as typeof import('node:os')).constants.signals;
  return Object.hasOwn(signals, name) ? signals[name] : undefined;
}

/**
 * The machine's total memory in bytes, as `os.totalmem()` says (libuv's `uv_get_total_memory`),
 * asked of Node's `os` binding for the same reason as {@link signalNumber}. Falls back to `node:os`.
 */
export function totalMemoryBytes(): number {
  const getTotalMem = legacyBinding('os')?.getTotalMem;
  if (typeof getTotalMem === 'function') return (getTotalMem as () => number)();
  return (process.getBuiltinModule('node:os') as typeof import('node:os')).totalmem();
}

/**
 * This machine's host name, as `os.hostname()` says, asked of Node's `os` binding for the same
 * reason as {@link signalNumber} (the check's lock records it). Falls back to `node:os`.
 */
export function hostName(): string {
  const getHostname = legacyBinding('os')?.getHostname;
  if (typeof getHostname === 'function') {
    const name = (getHostname as () => unknown)();
    if (typeof name === 'string') return name;
  }
  return (process.getBuiltinModule('node:os') as typeof import('node:os')).hostname();
}

/**
 * The system's temp directory as `os.tmpdir()` gives it: on POSIX `TMPDIR`, else `TMP`, else
 * `TEMP`, else `/tmp`, without a trailing slash (Node's lib/os.js); on Windows `node:os` itself,
 * whose rules there are longer. Saves a check loading `node:os` for it.
 */
export function systemTempDir(env: NodeJS.ProcessEnv = process.env): string {
  if (process.platform === 'win32') return (process.getBuiltinModule('node:os') as typeof import('node:os')).tmpdir();
  const path = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** libuv's end-of-file status (`UV_EOF` in uv/errno.h, the same on every platform). */
export const UV_EOF = -4095;

/**
 * The parts of libuv's pipe handle (Node's `pipe_wrap` binding, which `net.Socket` is built on)
 * that the hook's socket reader and the direct spawn's output pipes use. `onread` receives the
 * read's ArrayBuffer (absent on end or error); the byte count or libuv error is in
 * {@link UvPipeBinding.state}. Node asserts that `onread` is a function: never set it to null.
 */
export interface UvPipeHandle {
  open(fd: number): number;
  readStart(): number;
  readStop(): number;
  unref(): void;
  /** Closes the handle; `onClose` runs once libuv has (HandleWrap::Close). */
  close(onClose?: () => void): void;
  onread: (buffer?: ArrayBuffer) => void;
}

/** Node's pipe handle class and its read-state array. */
export interface UvPipeBinding {
  readonly Pipe: new (type: number) => UvPipeHandle;
  /** `pipe_wrap.constants.SOCKET`: the handle type `child_process` creates for a `'pipe'` stdio. */
  readonly socketType: number;
  /** Node's shared stream state: after each read, the byte count (or a libuv error) and the offset into the buffer. */
  readonly state: Int32Array;
  readonly bytesIndex: number;
  readonly offsetIndex: number;
}

/**
 * Node's `pipe_wrap` and `stream_wrap` bindings ({@link legacyBinding}), checked shape by shape,
 * so a Node that changed them yields `undefined` and the caller uses Node's public streams.
 */
export function uvPipeBinding(): UvPipeBinding | undefined {
  const pipe = legacyBinding('pipe_wrap');
  const stream = legacyBinding('stream_wrap');
  if (!pipe || !stream) return undefined;
  const Pipe = pipe.Pipe;
  const socketType = (pipe.constants as Record<string, unknown> | undefined)?.SOCKET;
  const { streamBaseState: state, kReadBytesOrError: bytesIndex, kArrayBufferOffset: offsetIndex } = stream;
  if (typeof Pipe !== 'function' || typeof socketType !== 'number' || !(state instanceof Int32Array) || typeof bytesIndex !== 'number' || typeof offsetIndex !== 'number') return undefined;
  return { Pipe: Pipe as UvPipeBinding['Pipe'], socketType, state, bytesIndex, offsetIndex };
}
