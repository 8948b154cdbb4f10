import { statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-write.js';
import { readRegularFile } from '../io/safe-read.js';

/** Most globs kept; a store that would hold more starts again empty. */
const MAX_GLOBS = 256;
/** Largest store file read, bytes (256 globs of at most 512 characters compile to well under this). */
const MAX_BYTES = 1024 * 1024;

/**
 * Compiled envelope globs kept across processes, for the hook's live envelope: compiling a glob
 * with picomatch costs about 0.6 ms of cold code per glob on every judged write, and loading
 * picomatch as much again, while the regular expression it produces (the whole matcher,
 * `compileGlob`) is a few hundred characters. The store maps each glob to the source and flags
 * of that expression, in `<cache>/live-globs.json` (owner-only, like the code caches beside it).
 * It is keyed by `key`, the identity of the code that compiled them (the hook and picomatch
 * bundles): another build finds a store of another key and starts again. A missing, foreign or
 * damaged store is simply empty; one that cannot be written costs the next call its compiling.
 */
export class GlobRegexStore {
  readonly #file: string;
  readonly #key: string;
  #globs: Record<string, [string, string]> = {};
  #dirty = false;

  /**
   * @param cacheDir cordon's cache directory.
   * @param key identifies the glob compiler (see {@link globCompilerKey}).
   */
  constructor(cacheDir: string, key: string) {
    this.#file = join(cacheDir, 'live-globs.json');
    this.#key = key;
    try {
      const stored = JSON.parse(readRegularFile(this.#file, { maxBytes: MAX_BYTES }).toString('utf8')) as { key?: unknown; globs?: unknown };
      if (stored.key === key && stored.globs && typeof stored.globs === 'object') this.#globs = stored.globs as Record<string, [string, string]>;
    } catch {
      // Missing or damaged: empty.
    }
  }

  /** The stored expression of `glob`, or undefined when none is stored (or it does not compile). */
  get(glob: string): RegExp | undefined {
    const entry = Object.hasOwn(this.#globs, glob) ? this.#globs[glob] : undefined;
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') return undefined;
    try {
      return new RegExp(entry[0], entry[1]);
    } catch {
      return undefined;
    }
  }

  /** Remembers `regex` as `glob`'s expression (written by {@link save}). */
  put(glob: string, regex: RegExp): void {
    if (Object.keys(this.#globs).length >= MAX_GLOBS) this.#globs = {};
    this.#globs[glob] = [regex.source, regex.flags];
    this.#dirty = true;
  }

  /** Writes the store when {@link put} added to it; never throws. */
  save(): void {
    if (!this.#dirty) return;
    try {
      writeFileAtomic(this.#file, JSON.stringify({ key: this.#key, globs: this.#globs }), { mode: 0o600 });
      this.#dirty = false;
    } catch {
      // The next call compiles again.
    }
  }
}

/**
 * The identity of the glob compiler a hook process uses: the hook bundle (which holds
 * `GLOB_OPTIONS` and the glob escaping) and the picomatch bundle beside it (`dist/hot/`), by
 * size, modification time and inode, as the code caches are named. Undefined when either is
 * missing (a run from sources): then no store is used.
 */
export function globCompilerKey(hotDir: string): string | undefined {
  try {
    return ['hook.cjs', 'picomatch.cjs']
      .map((name) => {
        const s = statSync(join(hotDir, name));
        return `${name}:${s.size}:${Math.trunc(s.mtimeMs)}:${s.ino}`;
      })
      .join('|');
  } catch {
    return undefined;
  }
}
