import { closeSync, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import type { Violation } from '@cordon/plugin-api';
import { displayPath } from '../path-text.js';
import { absPath } from './fs-path.js';
import type { UntrackedPath } from './untracked.js';

/**
 * Measuring changed paths on disk (research/cordon-envelope.md §6.3–§6.4): bytes, and for
 * untracked files lines and the binary verdict (a NUL anywhere). Symlinks count by their target
 * string and are never followed.
 */

/** Total untracked bytes one audit may read (research §3: 64 MiB). */
export const UNTRACKED_SCAN_CAP = 64 * 1024 * 1024;

/** What one untracked path measured. */
export interface UntrackedMeasure {
  readonly bytes: number;
  readonly lines: number;
  readonly binary: boolean;
}

/** Result of {@link measureUntracked}. */
export interface UntrackedScan {
  readonly measures: Map<string, UntrackedMeasure>;
  /** Preflight size sum, bytes (what `working_bytes` gets when the cap stops the scan). */
  readonly preflightBytes: number;
  /** Set when the preflight sum exceeded the cap; nothing was read. */
  readonly capExceeded: boolean;
  /** Per-path problems and cap violations, in path order. */
  readonly violations: Violation[];
}

/**
 * Measures `items` (sorted by the caller) within `cap` bytes in total (research §6.4): a
 * preflight sums their sizes; over the cap nothing is read and one violation says so;
 * otherwise each regular file is read through a shared budget. Problems (vanished, not a
 * regular file or symlink, unreadable, grew past the budget) become violations. `read` is
 * the reader (tests pass a failing one: research §16.2 H30).
 */
export function measureUntracked(root: string, items: readonly UntrackedPath[], cap = UNTRACKED_SCAN_CAP, read: typeof readWithinBudget = readWithinBudget): UntrackedScan {
  const steps = measureSteps(root, items, cap, read);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Files {@link measureUntrackedYielding} reads between two turns of the event loop. */
const FILES_PER_TURN = 32;

/**
 * {@link measureUntracked} that gives the event loop a turn every {@link FILES_PER_TURN} files,
 * for use while git commands stream into this process: a long synchronous stretch would leave
 * their pipes full and stall them (the audit's diff runs meanwhile). Same result.
 */
export async function measureUntrackedYielding(root: string, items: readonly UntrackedPath[], cap = UNTRACKED_SCAN_CAP): Promise<UntrackedScan> {
  const steps = measureSteps(root, items, cap, readWithinBudget);
  for (let n = 1; ; n++) {
    const step = steps.next();
    if (step.done) return step.value;
    if (n % FILES_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The work of {@link measureUntracked}, yielding after each path it stats and after each file it reads. */
function* measureSteps(root: string, items: readonly UntrackedPath[], cap: number, read: typeof readWithinBudget): Generator<void, UntrackedScan, void> {
  const measures = new Map<string, UntrackedMeasure>();
  const violations: Violation[] = [];
  const stats = new Map<string, Stats | Error | undefined>();
  const sizes = new Map<string, number>();
  let preflight = 0;
  for (const item of items) {
    if (item.kind === 'nested_repo') continue;
    let st: Stats | undefined;
    try {
      st = lstatSync(absPath(root, item.path), { throwIfNoEntry: false });
    } catch (error) {
      stats.set(item.path, error as Error);
      continue;
    }
    stats.set(item.path, st);
    if (!st) continue;
    const size = st.isSymbolicLink() ? readlinkSync(absPath(root, item.path), { encoding: 'buffer' }).length : st.isFile() ? st.size : 0;
    sizes.set(item.path, size);
    preflight += size;
    yield;
  }
  const capExceeded = preflight > cap;
  if (capExceeded) violations.push({ code: 'untracked_scan_cap', message: `untracked scan safety cap exceeded: ${preflight} > ${cap}`, limit: cap, actual: preflight });
  let budget = cap;
  let stopped = capExceeded;
  for (const item of items) {
    const shown = displayPath(item.path);
    if (item.kind === 'nested_repo') {
      violations.push({ code: 'nested_repository', message: `untracked path is not a regular file or symlink (nested repository): ${shown}`, path: item.path });
      continue;
    }
    const abs = absPath(root, item.path);
    const st = stats.get(item.path);
    if (st instanceof Error) {
      violations.push({ code: 'file_unreadable', message: `cannot read untracked path: ${shown}: ${st.message}`, path: item.path });
      continue;
    }
    if (!st) {
      violations.push({ code: 'file_disappeared', message: `untracked file disappeared: ${shown}`, path: item.path });
      continue;
    }
    if (st.isSymbolicLink()) {
      measures.set(item.path, { bytes: sizes.get(item.path) ?? 0, lines: stopped ? 0 : 1, binary: false });
      continue;
    }
    if (!st.isFile()) {
      violations.push({ code: 'unsupported_file_type', message: `untracked path is not a regular file or symlink: ${shown}`, path: item.path });
      continue;
    }
    if (stopped) {
      measures.set(item.path, { bytes: sizes.get(item.path) ?? st.size, lines: 0, binary: false });
      continue;
    }
    try {
      const got = read(abs, budget);
      if (got.exceeded) {
        violations.push({ code: 'untracked_scan_cap', message: `untracked scan safety cap exceeded during read: ${shown}`, path: item.path, limit: cap });
        measures.set(item.path, { bytes: got.bytes, lines: 0, binary: false });
        stopped = true;
        continue;
      }
      budget -= got.bytes;
      measures.set(item.path, { bytes: got.bytes, lines: got.binary ? 0 : got.lines, binary: got.binary });
    } catch (error) {
      violations.push({ code: 'file_unreadable', message: `cannot read untracked file: ${shown}: ${(error as Error).message}`, path: item.path });
    }
    yield;
  }
  return { measures, preflightBytes: preflight, capExceeded, violations };
}

/** One read buffer for every untracked file (reads are synchronous). */
const readBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * Reads the regular file `abs` consuming at most `budget + 1` bytes (research §6.4, H29):
 * `lines` = number of `\n`, plus 1 when the content is non-empty and does not end in `\n`;
 * `binary` = a NUL anywhere; `exceeded` when the file held more than `budget` bytes.
 * Throws `RangeError` for a negative or non-integer budget.
 */
export function readWithinBudget(abs: Buffer | string, budget: number): { bytes: number; lines: number; binary: boolean; exceeded: boolean } {
  if (!Number.isSafeInteger(budget) || budget < 0) throw new RangeError(`scan budget must be a non-negative integer, got ${budget}`);
  const fd = openSync(abs, 'r');
  try {
    const chunk = readBuffer;
    let bytes = 0;
    let newlines = 0;
    let binary = false;
    let last = -1;
    for (;;) {
      const want = Math.min(chunk.length, budget + 1 - bytes);
      if (want <= 0) break;
      const n = readSync(fd, chunk, 0, want, null);
      if (n === 0) break;
      const view = chunk.subarray(0, n);
      if (!binary && view.includes(0)) binary = true;
      for (let i = view.indexOf(10); i !== -1; i = view.indexOf(10, i + 1)) newlines += 1;
      last = view[n - 1]!;
      bytes += n;
      // A short read of a regular file is its end: no second read just to see 0 (half the read
      // calls of an audit over many small untracked files).
      if (n < want) break;
    }
    const exceeded = bytes > budget;
    const lines = newlines + (bytes > 0 && last !== 10 ? 1 : 0);
    return { bytes, lines, binary, exceeded };
  } finally {
    closeSync(fd);
  }
}

/**
 * Current size of a tracked changed path (research §6.3): regular file → its size; symlink →
 * target length; missing → 0 (a deletion). A directory (a submodule, a file replaced by a
 * directory) or any other type, or a failing `lstat`, is a violation.
 */
export function measureTracked(root: string, path: string): { bytes: number; violation?: Violation } {
  const abs = absPath(root, path);
  try {
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) return { bytes: 0 };
    if (st.isFile()) return { bytes: st.size };
    if (st.isSymbolicLink()) return { bytes: readlinkSync(abs, { encoding: 'buffer' }).length };
    return { bytes: 0, violation: { code: 'unsupported_file_type', message: `changed path has unsupported file type: ${displayPath(path)}`, path } };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return { bytes: 0 };
    return { bytes: 0, violation: { code: 'file_unreadable', message: `cannot stat changed path: ${displayPath(path)}: ${(error as Error).message}`, path } };
  }
}
