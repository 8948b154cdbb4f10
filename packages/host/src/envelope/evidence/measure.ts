import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';
import { lstatKind, type PathKind } from '../../io/stat-direct.js';
import type { Violation } from '@cordon/plugin-api';
import { displayPath } from '../path-text.js';
import { absPath } from './fs-path.js';
import type { UntrackedPath } from './untracked.js';
import { indexOfByte } from '../../util/byte-search.js';
import { systemErrorWords } from '@cordon/plugin-api';

/**
 * Measuring changed paths on disk (the BEKO2210/SkillQuarry cordon): bytes, and for
 * untracked files lines and the binary verdict (a NUL anywhere). Symlinks count by their target
 * string and are never followed.
 */

/**
 * Untracked bytes an audit reads at least before it stops counting lines (64 MiB, the BEKO2210/SkillQuarry cordon).
 * Never a reason to reject: see {@link untrackedReadLimit}.
 */
export const UNTRACKED_READ_FLOOR = 64 * 1024 * 1024;

/**
 * How many untracked bytes an audit reads to count lines and binary files: the working-byte
 * budget, or {@link UNTRACKED_READ_FLOOR} when that is smaller (so a small budget still gets
 * every budget reported). Past it the untracked sizes alone exceed the working-byte budget,
 * which rejects the change; the limit itself rejects nothing.
 */
export function untrackedReadLimit(maxWorkingBytes: number): number {
  return Math.max(maxWorkingBytes, UNTRACKED_READ_FLOOR);
}

/** What one untracked path measured. */
export interface UntrackedMeasure {
  readonly bytes: number;
  readonly lines: number;
  readonly binary: boolean;
}

/** Result of {@link measureUntracked}. */
export interface UntrackedScan {
  readonly measures: Map<string, UntrackedMeasure>;
  /** Preflight size sum, bytes (what `working_bytes` gets when the budget stops the scan). */
  readonly preflightBytes: number;
  /**
   * Set when the untracked files hold more bytes than the working-byte budget (the preflight sum,
   * or a file that grew while it was read): reading stopped there, so lines and binary verdicts
   * of the files not read are not counted. No violation of its own: the working-byte budget,
   * which the sizes already exceed, rejects the change.
   */
  readonly capExceeded: boolean;
  /** Per-path problems, in path order. */
  readonly violations: Violation[];
}

/**
 * Measures `items` (sorted by the caller) reading at most `cap` bytes in total, where `cap` is
 * {@link untrackedReadLimit} of the envelope's working-byte budget (the user's
 * budgets decide; the limit only bounds the reading). A preflight sums their sizes (the BEKO2210/SkillQuarry cordon); over `cap` nothing is read,
 * since the working-byte budget already fails on the sizes alone ({@link UntrackedScan.capExceeded});
 * otherwise each regular file is read (64 KiB at a time) through a shared budget, and a file that
 * grew past it stops the scan the same way. Problems (vanished, not a regular file or symlink,
 * unreadable) become violations. `read` is the reader (tests pass a failing one: the BEKO2210/SkillQuarry cordon H30).
 */
export function measureUntracked(root: string, items: readonly UntrackedPath[], cap: number, read: typeof readWithinBudget = readWithinBudget): UntrackedScan {
  const scan = new UntrackedScanner(root, items, cap, read);
  scan.advance(Infinity);
  return scan.result();
}

/** Files {@link measureUntrackedYielding} stats or reads between two turns of the event loop. */
const FILES_PER_TURN = 32;

/**
 * {@link measureUntracked} that gives the event loop a turn every {@link FILES_PER_TURN} files,
 * for use while git commands stream into this process: a long synchronous stretch would leave
 * their pipes full and stall them (the audit's diff runs meanwhile). Same result.
 */
export async function measureUntrackedYielding(root: string, items: readonly UntrackedPath[], cap: number): Promise<UntrackedScan> {
  const scan = new UntrackedScanner(root, items, cap, readWithinBudget);
  while (!scan.advance(FILES_PER_TURN)) await new Promise<void>((resolve) => setImmediate(resolve));
  return scan.result();
}

/** What phase 1 learnt of an item (UntrackedScanner). */
const enum Seen {
  Missing = 0,
  File = 1,
  Symlink = 2,
  Other = 3,
  Failed = 4,
}

/**
 * The work of {@link measureUntracked} in resumable steps: first every path is stat'ed (the
 * preflight sum), then every regular file is read. Plain methods rather than a generator: V8's
 * optimising compiler spends tens of ms on a generator this size (`node --trace-opt`). What the
 * stat said is kept per item in typed arrays, not as `Stats` objects: thousands of those, alive
 * from the first phase to the second, were copied by every garbage collection in between.
 */
class UntrackedScanner {
  readonly #measures = new Map<string, UntrackedMeasure>();
  readonly #violations: Violation[] = [];
  /** Per item: {@link Seen}, the size phase 1 found (bytes), the path on disk, a failed lstat's error. */
  readonly #seen: Uint8Array;
  readonly #sizes: Float64Array;
  readonly #abs: (string | Buffer)[];
  readonly #errors = new Map<number, Error>();
  #preflight = 0;
  /** Index of the next item to stat (phase 1) or, once all are stat'ed, to read (phase 2). */
  #next = 0;
  #reading = false;
  #capExceeded = false;
  #budget: number;
  #stopped = false;

  constructor(
    private readonly root: string,
    private readonly items: readonly UntrackedPath[],
    private readonly cap: number,
    private readonly read: typeof readWithinBudget,
  ) {
    this.#budget = cap;
    this.#seen = new Uint8Array(items.length);
    this.#sizes = new Float64Array(items.length);
    this.#abs = new Array<string | Buffer>(items.length);
  }

  /** Stats or reads up to `files` paths; true when everything is measured. */
  advance(files: number): boolean {
    const { items } = this;
    for (let done = 0; done < files; ) {
      if (this.#next === items.length) {
        if (this.#reading) return true;
        this.#startReading();
        continue;
      }
      const at = this.#next++;
      const item = items[at]!;
      if (item.kind === 'nested_repo') {
        if (this.#reading) this.#violations.push({ code: 'nested_repository', message: `untracked path is not a regular file or symlink (nested repository): ${displayPath(item.path)}`, path: item.path });
        continue;
      }
      if (item.kind === 'unreadable_dir') {
        if (this.#reading) this.#violations.push({ code: 'file_unreadable', message: `cannot read untracked directory: ${displayPath(item.path)}: ${item.error ?? 'unreadable'}`, path: item.path });
        continue;
      }
      if (this.#reading ? this.#measure(item, at) : this.#stat(item, at)) done += 1;
    }
    return false;
  }

  /** Phase 1 for item `at`; true when it was stat'ed. */
  #stat(item: UntrackedPath, at: number): boolean {
    const abs = absPath(this.root, item.path);
    this.#abs[at] = abs;
    let st: PathKind | undefined;
    try {
      st = lstatKind(abs);
    } catch (error) {
      this.#seen[at] = Seen.Failed;
      this.#errors.set(at, error as Error);
      return false;
    }
    if (!st) return false;
    let size = 0;
    if (st.type === 'symlink') {
      this.#seen[at] = Seen.Symlink;
      size = readlinkSync(abs, { encoding: 'buffer' }).length;
    } else if (st.type === 'file') {
      this.#seen[at] = Seen.File;
      size = st.size;
    } else this.#seen[at] = Seen.Other;
    this.#sizes[at] = size;
    this.#preflight += size;
    return true;
  }

  #startReading(): void {
    this.#reading = true;
    this.#next = 0;
    this.#capExceeded = this.#preflight > this.cap;
    this.#stopped = this.#capExceeded;
  }

  /** Phase 2 for item `at`; true when a file was read. */
  #measure(item: UntrackedPath, at: number): boolean {
    switch (this.#seen[at]) {
      case Seen.Failed:
        this.#violations.push({ code: 'file_unreadable', message: `cannot read untracked path: ${displayPath(item.path)}: ${systemErrorWords(this.#errors.get(at))}`, path: item.path });
        return false;
      case Seen.Missing:
        this.#violations.push({ code: 'file_disappeared', message: `untracked file disappeared: ${displayPath(item.path)}`, path: item.path });
        return false;
      case Seen.Symlink:
        this.#measures.set(item.path, { bytes: this.#sizes[at]!, lines: this.#stopped ? 0 : 1, binary: false });
        return false;
      case Seen.Other:
        this.#violations.push({ code: 'unsupported_file_type', message: `untracked path is not a regular file or symlink: ${displayPath(item.path)}`, path: item.path });
        return false;
    }
    if (this.#stopped) {
      this.#measures.set(item.path, { bytes: this.#sizes[at]!, lines: 0, binary: false });
      return false;
    }
    try {
      const got = this.read(this.#abs[at]!, this.#budget);
      if (got.exceeded) {
        // It grew since the preflight: what was read (budget + 1 bytes) already breaks the budget.
        this.#measures.set(item.path, { bytes: got.bytes, lines: 0, binary: false });
        this.#stopped = true;
        this.#capExceeded = true;
        return true;
      }
      this.#budget -= got.bytes;
      this.#measures.set(item.path, { bytes: got.bytes, lines: got.binary ? 0 : got.lines, binary: got.binary });
    } catch (error) {
      this.#violations.push({ code: 'file_unreadable', message: `cannot read untracked file: ${displayPath(item.path)}: ${systemErrorWords(error)}`, path: item.path });
    }
    return true;
  }

  result(): UntrackedScan {
    return { measures: this.#measures, preflightBytes: this.#preflight, capExceeded: this.#capExceeded, violations: this.#violations };
  }
}

/** One read buffer for every untracked file (reads are synchronous). */
const readBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * Reads the regular file `abs` consuming at most `budget + 1` bytes (the BEKO2210/SkillQuarry cordon, H29):
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
      if (!binary && indexOfByte(view, 0) !== -1) binary = true;
      for (let i = indexOfByte(view, 10); i !== -1; i = indexOfByte(view, 10, i + 1)) newlines += 1;
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
 * Current size of a tracked changed path (the BEKO2210/SkillQuarry cordon): regular file → its size; symlink →
 * target length; missing → 0 (a deletion). A directory (a submodule, a file replaced by a
 * directory) or any other type, or a failing `lstat`, is a violation.
 */
export function measureTracked(root: string, path: string): { bytes: number; violation?: Violation } {
  const abs = absPath(root, path);
  try {
    const st = lstatKind(abs);
    if (!st) return { bytes: 0 };
    if (st.type === 'file') return { bytes: st.size };
    if (st.type === 'symlink') return { bytes: readlinkSync(abs, { encoding: 'buffer' }).length };
    return { bytes: 0, violation: { code: 'unsupported_file_type', message: `changed path has unsupported file type: ${displayPath(path)}`, path } };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return { bytes: 0 };
    return { bytes: 0, violation: { code: 'file_unreadable', message: `cannot stat changed path: ${displayPath(path)}: ${(error as Error).message}`, path } };
  }
}
