import { statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../io/atomic-write.js';
import { ensurePrivateDir } from '../../io/private-dir.js';
import { readRegularFile } from '../../io/safe-read.js';

/** The file in Cordon's cache directory that holds the digests. */
export const KNOWN_DIGESTS_FILE = 'envelope-digests.json';
/** The largest digests file read, bytes (a line of about 150 bytes per envelope file remembered). */
const KNOWN_DIGESTS_MAX_BYTES = 4 * 1024 * 1024;

/** Entries kept (the newest): three per envelope, so about twenty envelopes. */
const MAX_ENTRIES = 64;

/**
 * A file changed less than this long before it was read may change again within the same
 * timestamp on a filesystem with coarse times (FAT: 2 s): its digest is used, never kept. Git
 * treats index entries it wrote in the same second the same way ("racy git").
 */
const RACY_NS = 2_000_000_000n;

/**
 * SHA-256 digests the envelope's integrity checks computed before, by the identity of the file
 * they were computed from (device, inode, size, modification and change time in ns), kept in
 * Cordon's cache directory ({@link KNOWN_DIGESTS_FILE}). `cordon check` verifies `config.json`,
 * `snapshot.json` and `info/exclude` against the hashes `state.json` recorded at arming; without
 * V8's optimising compiler (bin/run.cjs) the three SHA-256s cost about 1.7 ms of a 20-file check's
 * main thread (`npm run bench:envelope`), and these files change only when an envelope is armed.
 *
 * A file with the same identity holds the same bytes: any write changes its change time, which
 * nobody but the kernel sets, and Cordon replaces its files by renaming a new inode over them. A
 * digest is only used when the file's identity is the same before and after it was read, and only
 * kept when the file had not changed for {@link RACY_NS} before. The cache grants nothing that
 * editing `state.json` would not: both are files the same user can write. Unreadable or malformed
 * caches are ignored; writing one is best effort.
 */
export class KnownDigests {
  readonly #dir: string;
  readonly #file: string;
  #entries: Map<string, string> | undefined;
  #added = false;

  readonly #nowNs: () => bigint;

  /** The digests kept in `cacheDir`, read on first use; `nowNs` is the clock (ns since the epoch; tests move it). */
  constructor(cacheDir: string, nowNs: () => bigint = () => BigInt(Date.now()) * 1_000_000n) {
    this.#dir = cacheDir;
    this.#file = join(cacheDir, KNOWN_DIGESTS_FILE);
    this.#nowNs = nowNs;
  }

  /**
   * The identity of the file at `path` now: take it before reading the file, and pass it to
   * {@link matches} once what was read can be digested. Undefined when it cannot be stat'ed.
   */
  identify(path: string): FileIdentity | undefined {
    return fileIdentity(path);
  }

  /**
   * Whether what was read from the file `before` identifies (taken with {@link identify} before
   * the read) has the digest `expected`: true at once when the file still has that identity and
   * `expected` was kept for it; otherwise `compute()` decides, and its digest is kept when the
   * file had not changed for {@link RACY_NS} before it was read. A kept digest can thus only
   * spare a computation, never make a file fail. A file without an inode number is always
   * digested (FileIdentity.numbered). `compute`'s errors propagate.
   */
  matches(before: FileIdentity | undefined, expected: string, compute: () => string): boolean {
    if (!before?.numbered) return compute() === expected;
    const after = this.identify(before.path);
    if (!after || after.print !== before.print) return compute() === expected;
    const key = `${before.path}\n${before.print}`;
    const entries = this.#load();
    if (entries.get(key) === expected) return true;
    const computed = compute();
    if (this.#nowNs() - before.changedNs >= RACY_NS) {
      entries.delete(key);
      entries.set(key, computed);
      while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      this.#added = true;
    }
    return computed === expected;
  }

  /** Writes the cache when {@link matches} added to it (owner-only, no fsync: it is a cache). */
  save(): void {
    if (!this.#added || !this.#entries) return;
    this.#added = false;
    try {
      ensurePrivateDir(this.#dir);
      writeFileAtomic(this.#file, `${JSON.stringify(Object.fromEntries(this.#entries))}\n`, { mode: 0o600, durable: false });
    } catch {
      // A cache that cannot be written costs the next check its hashing.
    }
  }

  #load(): Map<string, string> {
    if (this.#entries) return this.#entries;
    this.#entries = new Map();
    try {
      // Non-blocking, regular files only: a FIFO here held every check.
      const parsed = JSON.parse(readRegularFile(this.#file, { maxBytes: KNOWN_DIGESTS_MAX_BYTES, links: 'always' }).toString('utf8')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string' && /^[0-9a-f]{64}$/.test(value)) this.#entries.set(key, value);
      }
    } catch {
      // Missing or malformed: start empty.
    }
    return this.#entries;
  }
}

/** What {@link KnownDigests.identify} returns. */
export interface FileIdentity {
  readonly path: string;
  /** `dev:ino:size:mtime:ctime`, times in ns. */
  readonly print: string;
  /** The later of the modification and change times, ns since the epoch. */
  readonly changedNs: bigint;
  /**
   * Whether the filesystem gave the file an inode number: some report 0 for every file (FAT and
   * network filesystems on Windows, some FUSE ones), and a file renamed over another is then
   * told apart by its size and times alone, too little to skip its digest on.
   */
  readonly numbered: boolean;
}

/**
 * The identity of the file at `path` (links followed): `dev:ino:size:mtime:ctime`, times in ns,
 * which changes with any write to it or any file renamed over it; undefined when it cannot be
 * stat'ed (missing, or unreachable: then the read that follows fails and says why). Also what the check's read-ahead compares (read-ahead.ts).
 */
export function fileIdentity(path: string): FileIdentity | undefined {
  let st;
  try {
    st = statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    // Not reachable (EACCES on .cordon/, ENOTDIR): no identity; the read that follows says why.
    return undefined;
  }
  return st ? { path, print: `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`, changedNs: st.ctimeNs > st.mtimeNs ? st.ctimeNs : st.mtimeNs, numbered: st.ino !== 0n } : undefined;
}
