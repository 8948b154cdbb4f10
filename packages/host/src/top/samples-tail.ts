import { readRegularFileWindow } from '../io/safe-read.js';
import { windowLines } from '../io/window-lines.js';
import { numberField, parseObject } from './lines.js';

/** How much of the end of `samples.jsonl` is read for the newest sample, bytes (a sample line is about 70 bytes). */
export const LATEST_SAMPLE_BYTES = 4 * 1024;

/**
 * The most of `samples.jsonl` read for one call's peak, bytes: about 56,000 samples, 3.9 hours at
 * the default 250 ms interval. A call that has run longer gets the peak of its last
 * {@link PEAK_WINDOW_BYTES} (`peak_from` says since when).
 */
export const PEAK_WINDOW_BYTES = 4 * 1024 * 1024;

/**
 * The most memory a sample can claim, MiB: 16 EiB, a whole 64-bit address space. More is no
 * reading of a real tree (a corrupt or forged line), so it reads as unknown.
 */
export const MAX_MEM_MB = 2 ** 44;

/** The most CPU a sample can claim, % of one core: 10,000 cores busy. More reads as unknown. */
export const MAX_CPU_PCT = 1_000_000;

/** The newest reading of a session's process tree (one line of `samples.jsonl`, MARKERS.md and `sample.ts`). */
export interface TreeNow {
  /** When the sampler read the tree, epoch ms. */
  readonly at: number;
  /** RSS summed over the agent's process tree, MiB; `null` when the line's value cannot be real (see {@link plausible}). */
  readonly mem_mb: number | null;
  /** CPU of the tree since the previous sample, % of one core; `null` when missing or not real. */
  readonly cpu_pct: number | null;
  /** Processes in the tree; `null` when missing or not a count. */
  readonly n_procs: number | null;
}

/**
 * `value` when it is a number a sampler could have written: finite, not negative, at most `max`
 * (and a whole number when `integer`); else `null`, shown as unknown. The files are an agent's to
 * write, so `-1e308` MiB or `-3` processes are read as no value, never shown as one.
 */
export function plausible(value: unknown, max: number, integer = false): number | null {
  const n = numberField(value);
  if (n === undefined || n < 0 || n > max || (integer && !Number.isInteger(n))) return null;
  return n;
}

/** A sample line's fields, or `undefined` for a line that is not one (no finite `t`, no numeric `mem_mb`). */
function toSample(line: string): TreeNow | undefined {
  const value = parseObject(line);
  if (!value) return undefined;
  const at = numberField(value.t);
  if (at === undefined || typeof value.mem_mb !== 'number') return undefined;
  return { at, mem_mb: plausible(value.mem_mb, MAX_MEM_MB), cpu_pct: plausible(value.cpu_pct, MAX_CPU_PCT), n_procs: plausible(value.n_procs, Number.MAX_SAFE_INTEGER, true) };
}

/** The newest sample in the last {@link LATEST_SAMPLE_BYTES} of `path`, or `undefined` (none yet, unreadable). */
export function readLatestSample(path: string): TreeNow | undefined {
  let lines: string[];
  try {
    lines = windowLines(readRegularFileWindow(path, { maxBytes: LATEST_SAMPLE_BYTES })).lines;
  } catch {
    return undefined; // no sample yet, or unreadable
  }
  for (let i = lines.length - 1; i >= 0; i--) {
    const sample = toSample(lines[i]!);
    if (sample) return sample;
  }
  return undefined;
}

/** The highest memory of a session's tree since a call started. */
export interface CallPeak {
  /** The highest `mem_mb` of the samples taken since the call started, MiB; `null` before the first. */
  readonly mem_mb: number | null;
  /**
   * The time of the oldest sample the peak covers, epoch ms, when the samples read do not reach
   * back to the call's start (a call longer than {@link PEAK_WINDOW_BYTES} of samples); `null`
   * when the peak covers the whole call.
   */
  readonly from: number | null;
}

/**
 * The peak memory of one call, kept up to date by reading only what the sampler appended since
 * the last look: the first look reads at most {@link PEAK_WINDOW_BYTES} from the end of
 * `samples.jsonl`, each later one the bytes from where the previous stopped (at most
 * {@link PEAK_WINDOW_BYTES} of them), so following a session costs what it wrote since, never the
 * file's size. A file replaced or shortened under the same name (another inode, a smaller size)
 * is read afresh.
 */
export class PeakTracker {
  readonly #path: string;
  readonly #since: number;
  #next = -1;
  #file = '';
  #peak: number | null = null;
  #from: number | null = null;

  /**
   * @param path the session's `samples.jsonl`
   * @param since the call's start, epoch ms: samples before it do not count
   */
  constructor(path: string, since: number) {
    this.#path = path;
    this.#since = since;
  }

  /** The call's start this tracker counts from, epoch ms. */
  get since(): number {
    return this.#since;
  }

  /** Reads what was appended since the last call and returns the peak so far. Never throws. */
  update(): CallPeak {
    try {
      let window = readRegularFileWindow(this.#path, { maxBytes: PEAK_WINDOW_BYTES, from: Math.max(0, this.#next) });
      const file = `${window.dev}:${window.ino}`;
      const resumed = this.#next >= 0 && file === this.#file && window.size >= this.#next;
      if (!resumed && this.#next >= 0) {
        // Another file under the same name, or a shorter one: start over from its end.
        this.#peak = null;
        this.#from = null;
        window = readRegularFileWindow(this.#path, { maxBytes: PEAK_WINDOW_BYTES });
      }
      this.#file = file;
      return this.#take(window, resumed && window.start === this.#next);
    } catch {
      // Not there yet (no sample written), or unreadable: the peak so far.
      return { mem_mb: this.#peak, from: this.#from };
    }
  }

  #take(window: ReturnType<typeof readRegularFileWindow>, resumed: boolean): CallPeak {
    const { lines, next, cut } = windowLines(window, resumed);
    let first: number | undefined;
    for (const line of lines) {
      const sample = toSample(line);
      if (!sample) continue;
      first ??= sample.at;
      if (sample.at < this.#since || sample.mem_mb === null) continue;
      if (this.#peak === null || sample.mem_mb > this.#peak) this.#peak = sample.mem_mb;
    }
    // Samples were skipped (a first look at a long file, or more appended than one window holds)
    // and the oldest one read is already inside the call: the peak does not cover its start.
    if (cut && !resumed && first !== undefined && first > this.#since) this.#from = Math.max(this.#from ?? 0, first);
    this.#next = next;
    return { mem_mb: this.#peak, from: this.#from };
  }
}
