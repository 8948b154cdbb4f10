import { constants, lstatSync } from 'node:fs';
import { legacyBinding } from '../util/legacy-binding.js';

/** A path's type as `lstat(2)` gives it (symlinks not followed) and its size in bytes. */
export interface PathKind {
  readonly type: 'file' | 'symlink' | 'directory' | 'other';
  /** `st_size`: a file's length, a symlink's target length (bytes). */
  readonly size: number;
}

/** `st_mode` and `st_size` in the array Node's `fs` binding fills (`kMode`, `kSize` of lib/internal/fs/utils.js). */
const MODE = 1;
const SIZE = 8;

/** Node's `fs.binding.lstat` in the convention this file knows, or undefined (then `fs.lstatSync` is used). */
let direct: ((path: string | Buffer, bigint: false, request: undefined, throwIfNoEntry: boolean) => Float64Array | undefined) | null | undefined;

/**
 * The binding's `lstat` when it takes `(path, bigint, undefined, throwIfNoEntry)` and returns the
 * filled stat array or `undefined` for a missing path, which is how Node 20.19+, 22 and 24 call
 * it from `fs.lstatSync` (their lib/fs.js). Known by the text of this Node's own `lstatSync`, so a
 * Node that calls it otherwise (a mismatch is a failed native assertion that aborts the process)
 * gets `null`; so does a process under Node's permission model, whose checks live in `lstatSync`.
 */
function directLstat(): typeof direct {
  if (direct !== undefined) return direct;
  direct = null;
  if ((process as { permission?: unknown }).permission !== undefined) return direct;
  const fs = legacyBinding('fs');
  if (typeof fs?.lstat !== 'function' || !(fs.statValues instanceof Float64Array)) return direct;
  if (!/binding\.lstat\(\s*(pathModule\.toNamespacedPath\(path\)|path),\s*options\.bigint,\s*undefined,\s*options\.throwIfNoEntry,?\s*\)/.test(Function.prototype.toString.call(lstatSync))) return direct;
  direct = fs.lstat as NonNullable<typeof direct>;
  return direct;
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
  const lstat = directLstat();
  if (!lstat || (typeof path === 'string' ? path.includes('\0') : path.includes(0))) {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st && kindOf(st.mode, st.size);
  }
  const values = lstat(path, false, undefined, false);
  return values && kindOf(values[MODE]!, values[SIZE]!);
}

/** Whether {@link lstatKind} asks Node's binding directly in this process (else it is `fs.lstatSync`). For its tests. */
export function lstatKindIsDirect(): boolean {
  return typeof directLstat() === 'function';
}
