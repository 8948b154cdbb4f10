import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { pathText } from '../path-text.js';
import { indexOfByte } from '../../util/byte-search.js';

/**
 * Reading the index file itself (gitformat-index(5)) for the one thing every `check` needs from
 * it: the paths hidden by assume-unchanged or skip-worktree. `git ls-files -z -v` answers the same
 * question, but on a 100,000-entry index that is a process and 100,000 records to scan for a list
 * that is almost always empty, at the same time as the audit's diff (`npm run bench:envelope`).
 */

/** `CE_VALID` in an entry's flags: assume-unchanged (`git update-index --assume-unchanged`). */
const CE_VALID = 0x8000;
/** `CE_EXTENDED`: a second 16-bit flags word follows (index version 3 and later). */
const CE_EXTENDED = 0x4000;
/** `CE_NAMEMASK`: the name length, or 0xFFF for "0xFFF or more" (then the NUL ends the name). */
const CE_NAMEMASK = 0x0fff;
/** `CE_SKIP_WORKTREE` in the extended flags. */
const CE_SKIP_WORKTREE = 0x4000;
/** ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 bytes each). */
const STAT_BYTES = 40;

/**
 * The paths whose entries carry assume-unchanged or skip-worktree, in index order, read from the
 * index file at `path` (versions 2, 3 and 4; `hashBytes` 20 for SHA-1 repositories, 32 for
 * SHA-256). `[]` when the file does not exist (no index yet). `undefined` when the file is not
 * one this reader vouches for: another signature or version, a split index (`link` extension),
 * a sparse index (`sdir`), or anything truncated or inconsistent; the caller then asks
 * `git ls-files -v`. The trailing checksum is not verified (git rewrites the index atomically).
 * The file is read through a window of `windowBytes` (tests pass tiny ones so that entries
 * straddle window edges); it grows only for an entry longer than that.
 */
export function hiddenPathsFromIndex(path: string, hashBytes: 20 | 32, windowBytes = WINDOW_BYTES): string[] | undefined {
  return readIndexFacts(path, hashBytes, windowBytes)?.hidden;
}

/** What {@link readIndexFacts} reads from an index file. */
export interface IndexFacts {
  /** Paths carrying assume-unchanged or skip-worktree, in index order. */
  readonly hidden: string[];
  /**
   * The tree id the whole index amounts to, from a valid root entry of the cache-tree extension
   * (gitformat-index(5) "Cache tree"; git writes it on commit, checkout and reset and drops the
   * root whenever an entry changes), as lowercase hex; undefined when the index holds none.
   */
  readonly tree: string | undefined;
}

/**
 * {@link hiddenPathsFromIndex} and the index's cache-tree root in one pass over the file. `[]`
 * and no tree when there is no index; `undefined` in the cases {@link hiddenPathsFromIndex}
 * names.
 */
export function readIndexFacts(path: string, hashBytes: 20 | 32, windowBytes = WINDOW_BYTES): IndexFacts | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { hidden: [], tree: undefined } : undefined;
  }
  try {
    return walkIndex(new IndexWindow(fd, fstatSync(fd).size, windowBytes), hashBytes);
  } finally {
    closeSync(fd);
  }
}

function walkIndex(w: IndexWindow, hashBytes: 20 | 32): IndexFacts | undefined {
  const step = w.step;
  if (w.size < 12 + hashBytes || !w.more(0, 12) || w.buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = w.buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = w.buf.readUInt32BE(8);
  // An index of 2 GiB or more is left to `git ls-files -v`. Below that, `| 0` makes the end a
  // small integer: the size comes from fstat as a heap number, and arithmetic on one allocates
  // another on every entry in a process without V8's optimising compiler (bin/run.cjs).
  if (w.size - hashBytes > 0x7fffffff) return undefined;
  const end = (w.size - hashBytes) | 0;
  const hidden: string[] = [];
  // Version 4 stores each name as "drop N bytes of the previous name, then this suffix": the
  // current name is kept in one reused buffer. Nothing is allocated per entry but for hidden ones.
  let name = Buffer.allocUnsafe(version === 4 ? 4096 : 0);
  let nameLength = 0;
  let at = 12;
  // Each entry is parsed from the window with plain indexing; when it runs past the bytes read
  // so far, the window moves to the entry (w.more) and the entry is parsed again.
  let { buf, filled, base } = w;
  const flagsAt = STAT_BYTES + hashBytes;
  for (let i = 0; i < count; ) {
    if (buf !== w.buf || filled !== w.filled || base !== w.base) ({ buf, filled, base } = w);
    const limit = end - base;
    if (version !== 4) {
      // The common entry (versions 2 and 3: no flag but the name's length, a name under 0xFFF
      // bytes, wholly in the window) is skipped with the fewest steps: a check runs without V8's
      // optimising compiler, where every operation in this loop counts at 100,000 entries. Any
      // other entry, or one running past the window, is left to the general parse below.
      const stop = filled < limit ? filled : limit;
      let p = at - base;
      while (i < count) {
        const f = p + flagsAt;
        if (f + 2 > stop) break;
        const flags = (buf[f]! << 8) | buf[f + 1]!;
        if (flags >= CE_EXTENDED || (flags & CE_NAMEMASK) === CE_NAMEMASK) break;
        const nul = f + 2 + flags;
        if (nul >= stop) break;
        if (buf[nul] !== 0) return undefined;
        p += (flagsAt + 10 + flags) & ~7;
        i += 1;
      }
      at = base + p;
      if (i === count) break;
    }
    const start = at - base;
    let cursor = start + STAT_BYTES + hashBytes;
    if (cursor + 4 > limit) return undefined;
    if (cursor + 4 > filled) {
      if (!w.more(at, cursor + 4 - start)) return undefined;
      continue;
    }
    const flags = (buf[cursor]! << 8) | buf[cursor + 1]!;
    cursor += 2;
    let extended = 0;
    if (flags & CE_EXTENDED) {
      if (version < 3) return undefined;
      extended = (buf[cursor]! << 8) | buf[cursor + 1]!;
      cursor += 2;
    }
    const isHidden = (flags & CE_VALID) !== 0 || (extended & CE_SKIP_WORKTREE) !== 0;
    if (version === 4) {
      if (cursor >= limit) return undefined;
      if (cursor >= filled) {
        if (!w.more(at, cursor + 1 - start)) return undefined;
        continue;
      }
      // The offset varint (varint.c decode_varint): 7 bits a byte, high bit "more", +1 per continuation.
      let c = buf[cursor++]!;
      let drop = c & 0x7f;
      while (c & 0x80 && cursor < filled && drop <= 0xffffff) {
        drop += 1;
        c = buf[cursor++]!;
        drop = (drop << 7) + (c & 0x7f);
      }
      const nul = c & 0x80 ? -1 : indexOfByte(buf, 0, cursor);
      if (nul === -1 || nul >= filled) {
        if (!w.more(at, filled - start + step)) return undefined;
        continue;
      }
      if (nul >= limit || drop > nameLength) return undefined;
      const kept = nameLength - drop;
      nameLength = kept + (nul - cursor);
      if (nameLength > name.length) {
        const grown = Buffer.allocUnsafe(Math.max(nameLength, name.length * 2));
        name.copy(grown, 0, 0, kept);
        name = grown;
      }
      buf.copy(name, kept, cursor, nul);
      if (isHidden) hidden.push(pathText(Buffer.from(name.subarray(0, nameLength))));
      at = base + nul + 1;
    } else {
      let length = flags & CE_NAMEMASK;
      if (length === CE_NAMEMASK) {
        const nul = indexOfByte(buf, 0, cursor + length);
        if (nul === -1 || nul >= filled) {
          if (!w.more(at, filled - start + step)) return undefined;
          continue;
        }
        length = nul - cursor;
      }
      if (cursor + length >= limit) return undefined;
      if (cursor + length >= filled) {
        if (!w.more(at, cursor + length + 1 - start)) return undefined;
        continue;
      }
      if (buf[cursor + length] !== 0) return undefined;
      if (isHidden) hidden.push(pathText(buf.subarray(cursor, cursor + length)));
      // An entry is padded with 1 to 8 NULs to a multiple of 8 bytes (ondisk_ce_size in git).
      at += (cursor - start + length + 8) & ~7;
    }
    i += 1;
  }
  // Extensions: a 4-byte signature and a 4-byte size each, up to the checksum.
  let tree: string | undefined;
  while (at + 8 <= end) {
    if ((at < w.base || at + 8 > w.base + w.filled) && !w.more(at, 8)) return undefined;
    const signature = w.buf.toString('latin1', at - w.base, at - w.base + 4);
    if (signature === 'link' || signature === 'sdir') return undefined;
    const size = w.buf.readUInt32BE(at - w.base + 4);
    if (signature === 'TREE') tree = rootTree(w, at + 8, Math.min(size, 64 + hashBytes), hashBytes);
    at += 8 + size;
  }
  return at === end ? { hidden, tree } : undefined;
}

/**
 * The root entry of a cache-tree extension starting at `from`: an empty path, its NUL,
 * `<entry_count> SP <subtrees> LF`, then the tree id unless `entry_count` is -1 (invalid).
 */
function rootTree(w: IndexWindow, from: number, need: number, hashBytes: number): string | undefined {
  if ((from < w.base || from + need > w.base + w.filled) && !w.more(from, need)) return undefined;
  const start = from - w.base;
  const view = w.buf.subarray(start, Math.min(start + need, w.filled));
  if (view[0] !== 0) return undefined;
  const lf = view.indexOf(10, 1);
  if (lf === -1) return undefined;
  const counts = /^(-?\d+) (\d+)$/.exec(view.toString('latin1', 1, lf));
  if (!counts || counts[1]!.startsWith('-') || lf + 1 + hashBytes > view.length) return undefined;
  return view.toString('hex', lf + 1, lf + 1 + hashBytes);
}

/** Bytes of the index read per window (the window is reused: the file is never held whole). */
const WINDOW_BYTES = 256 * 1024;

/**
 * A window of an open file: `buf[0, filled)` holds the file's bytes from offset `base`. Reading
 * a 9 MB index through one reused window costs none of the page faults of a 9 MB allocation
 * (most of the time of reading it whole).
 */
class IndexWindow {
  buf: Buffer;
  base = 0;
  filled = 0;

  constructor(
    private readonly fd: number,
    /** File size in bytes. */
    readonly size: number,
    /** Bytes the window starts with, and grows by when one entry needs more. */
    readonly step: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(1, Math.min(step, size)));
  }

  /**
   * Moves the window to start at file offset `from` and reads until it holds `need` bytes or the
   * file ends. True when it holds more bytes from `from` than before (callers then parse again).
   */
  more(from: number, need: number): boolean {
    const before = from >= this.base && from < this.base + this.filled ? this.base + this.filled - from : 0;
    if (before > 0) this.buf.copy(this.buf, 0, from - this.base, this.filled);
    this.base = from;
    this.filled = before;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.filled);
      this.buf = grown;
    }
    while (this.filled < need && this.base + this.filled < this.size) {
      const got = readSync(this.fd, this.buf, this.filled, this.buf.length - this.filled, this.base + this.filled);
      if (got === 0) break;
      this.filled += got;
    }
    return this.filled > before && this.filled >= Math.min(need, this.size - this.base);
  }
}
