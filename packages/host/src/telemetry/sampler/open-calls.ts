import { statSync } from 'node:fs';
import { readMarkers } from '../markers.js';
import { pairCalls } from '../reduce/pair.js';

/**
 * Whether a session's `markers.jsonl` holds a tool call that started and has not ended (a
 * `tool_start` no `tool_end` paired, the pairing `cordon reduce` uses). A session with an open
 * call is never idle: a long test suite writes no marker until it ends, and stopping the sampler
 * meanwhile lost its samples (a 200 MiB peak recorded as 16 MiB).
 *
 * The answer is kept per file size and mtime, so an idle sampler reads the file again only after
 * a new marker; a missing or unreadable file has no open call.
 */
export class OpenCalls {
  readonly #path: string;
  #seen: string | undefined;
  #open = false;

  constructor(markersPath: string) {
    this.#path = markersPath;
  }

  /** True while some call in the file is open. */
  any(): boolean {
    let stamp: string;
    try {
      const stat = statSync(this.#path, { throwIfNoEntry: false });
      if (!stat) return false;
      stamp = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      return false;
    }
    if (stamp === this.#seen) return this.#open;
    this.#seen = stamp;
    try {
      this.#open = pairCalls(readMarkers(this.#path).markers).unpairedStarts.length > 0;
    } catch {
      this.#open = false;
    }
    return this.#open;
  }
}
