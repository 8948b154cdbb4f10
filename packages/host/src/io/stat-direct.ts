// `stat(2)` and `lstat(2)` asked of Node's `fs` binding directly, in the calling convention
// `fs.statSync`/`fs.lstatSync` use, for the hot paths that stat many files and need a number or
// two of each: `lstatKind` (a path's type and size: check's sizing of changed paths) and
// `statStamp` (size and mtime: the plugin index's cache key). Without the `fs.Stats` and four
// `Date`s the public functions build; `fs` itself wherever the binding's shape is not known.
import { constants, lstatSync, statSync } from 'node:fs';
import { legacyBinding } from '../util/legacy-binding.js';

/** A path's type as `lstat(2)` gives it (symlinks not followed) and its size in bytes. */
export interface PathKind {
  readonly type: 'file' | 'symlink' | 'directory' | 'other';
  /** `st_size`: a file's length, a symlink's target length (bytes). */
  readonly size: number;
}

/** `st_mode`, `st_size` and `st_mtim` in the array Node's `fs` binding fills (`kMode`, `kSize`, … of lib/internal/fs/utils.js). */
const MODE = 1;
const SIZE = 8;
const MTIME_SEC = 12;
const MTIME_NSEC = 13;

/** One of Node's `fs` binding calls `stat` and `lstat`: `(path, bigint, request, throwIfNoEntry)` → the filled array, or undefined for a missing path. */
type DirectStat = (path: string | Buffer, bigint: false, request: undefined, throwIfNoEntry: boolean) => Float64Array | undefined;

/** The binding's `stat` and `lstat` once looked at: the function, or null where `fs` is used. */
const direct: { stat?: DirectStat | null; lstat?: DirectStat | null } = {};

/**
 * The binding's `name` (`stat` or `lstat`) when it takes `(path, bigint, undefined,
 * throwIfNoEntry)` and returns the filled stat array or `undefined` for a missing path, which is
 * how Node 20.19+, 22 and 24 call it from `fs.statSync`/`fs.lstatSync` (their lib/fs.js). Known
 * by the text of this Node's own function, so a Node that calls it otherwise (a mismatch is a
 * failed native assertion that aborts the process) gets `null`; so does a process under Node's
 * permission model, whose checks live in the `fs` functions, and Windows, where `fs` first makes
 * a path a namespaced (`\\?\`) one.
 */
function directStat(name: 'stat' | 'lstat', publicFunction: (...args: never[]) => unknown): DirectStat | null {
  const known = direct[name];
  if (known !== undefined) return known;
  direct[name] = null;
  if ((process as { permission?: unknown }).permission !== undefined || process.platform === 'win32') return null;
  const fs = legacyBinding('fs');
  if (typeof fs?.[name] !== 'function' || !(fs.statValues instanceof Float64Array)) return null;
  const call = new RegExp(`binding\\.${name}\\(\\s*(pathModule\\.toNamespacedPath\\(path\\)|getValidatedPath\\(path\\)|path),\\s*options\\.bigint,\\s*undefined,\\s*options\\.throwIfNoEntry,?\\s*\\)`);
  if (!call.test(Function.prototype.toString.call(publicFunction))) return null;
  return (direct[name] = fs[name] as DirectStat);
}

/** Whether `path` holds a NUL byte: Node's own validation refuses it (the binding would read the path up to it). */
function holdsNul(path: string | Buffer): boolean {
  return typeof path === 'string' ? path.includes('\0') : path.includes(0);
}

/** The {@link PathKind} of an `st_mode` and `st_size`. */
function kindOf(mode: number, size: number): PathKind {
  const format = mode & constants.S_IFMT;
  const type = format === constants.S_IFREG ? 'file' : format === constants.S_IFLNK ? 'symlink' : format === constants.S_IFDIR ? 'directory' : 'other';
  return { type, size };
}

/**
 * `fs.lstatSync(path, { throwIfNoEntry: false })` reduced to the type and size: `undefined` when
 * nothing is at `path` (ENOENT), and throws what `lstatSync` throws (`ENOTDIR`, `EACCES` …, with
 * the same `code`, `syscall` and message).
 *
 * Why not `lstatSync` itself: it builds an `fs.Stats` with four `Date`s for every call. `check`
 * sizes every changed and untracked path (1,400 `lstat`s for 1,250 changed paths of the
 * 20,000-file bench), where under `--no-opt` (bin/run.cjs) that costs about 11 µs a call against
 * 5 µs for the system call itself, and 1 MB of allocations (`npm run bench:envelope`). Where the
 * binding is not in the known shape, and for a path holding a NUL byte (Node's validation names
 * it), this is `lstatSync`.
 */
export function lstatKind(path: string | Buffer): PathKind | undefined {
  const lstat = directStat('lstat', lstatSync);
  if (!lstat || holdsNul(path)) {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st && kindOf(st.mode, st.size);
  }
  const values = lstat(path, false, undefined, false);
  return values && kindOf(values[MODE]!, values[SIZE]!);
}

/** Whether {@link lstatKind} asks Node's binding directly in this process (else it is `fs.lstatSync`). For its tests. */
export function lstatKindIsDirect(): boolean {
  return typeof directStat('lstat', lstatSync) === 'function';
}

/**
 * `<size>:<mtimeMs>` of what is at `path` (`stat(2)`: links followed), the numbers
 * `fs.statSync(path)` gives as `size` and `mtimeMs` (Node's `msFromTimeSpec`: seconds × 1000 +
 * nanoseconds / 1e6, the same floating-point value), or `missing` when it cannot be stat'ed for
 * any reason. Cheap identity for cache keys (the plugin index stamps every plugin's package.json
 * and register modules on every hook call and `control run`): like {@link lstatKind}, without
 * the `fs.Stats` and its four `Date`s `statSync` builds. Never throws.
 */
export function statStamp(path: string): string {
  try {
    const stat = directStat('stat', statSync);
    if (!stat || holdsNul(path)) {
      const st = statSync(path);
      return `${st.size}:${st.mtimeMs}`;
    }
    const values = stat(path, false, undefined, false);
    return values ? `${values[SIZE]!}:${values[MTIME_SEC]! * 1000 + values[MTIME_NSEC]! / 1e6}` : 'missing';
  } catch {
    return 'missing';
  }
}

/** Whether {@link statStamp} asks Node's binding directly in this process (else it is `fs.statSync`). For its tests. */
export function statStampIsDirect(): boolean {
  return typeof directStat('stat', statSync) === 'function';
}
