import { readFileSync } from 'node:fs';
import { pathText } from '../path-text.js';

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
 */
export function hiddenPathsFromIndex(path: string, hashBytes: 20 | 32): string[] | undefined {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? [] : undefined;
  }
  if (data.length < 12 + hashBytes || data.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = data.readUInt32BE(8);
  const end = data.length - hashBytes;
  const hidden: string[] = [];
  // Version 4 stores each name as "drop N bytes of the previous name, then this suffix": the
  // current name is kept in one reused buffer. Nothing is allocated per entry but for hidden ones
  // (a 100,000-entry index is walked in a few ms).
  let name = Buffer.allocUnsafe(version === 4 ? 4096 : 0);
  let nameLength = 0;
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    let cursor = start + STAT_BYTES + hashBytes;
    if (cursor + 2 > end) return undefined;
    const flags = (data[cursor]! << 8) | data[cursor + 1]!;
    cursor += 2;
    let extended = 0;
    if (flags & CE_EXTENDED) {
      if (version < 3 || cursor + 2 > end) return undefined;
      extended = (data[cursor]! << 8) | data[cursor + 1]!;
      cursor += 2;
    }
    const isHidden = (flags & CE_VALID) !== 0 || (extended & CE_SKIP_WORKTREE) !== 0;
    if (version === 4) {
      const drop = readOffsetVarint(data, cursor, end);
      if (!drop || drop.value > nameLength) return undefined;
      cursor = drop.next;
      const nul = data.indexOf(0, cursor);
      if (nul === -1 || nul >= end) return undefined;
      const kept = nameLength - drop.value;
      nameLength = kept + (nul - cursor);
      if (nameLength > name.length) {
        const grown = Buffer.allocUnsafe(Math.max(nameLength, name.length * 2));
        name.copy(grown, 0, 0, kept);
        name = grown;
      }
      data.copy(name, kept, cursor, nul);
      if (isHidden) hidden.push(pathText(Buffer.from(name.subarray(0, nameLength))));
      at = nul + 1;
    } else {
      let length = flags & CE_NAMEMASK;
      if (length === CE_NAMEMASK) {
        const nul = data.indexOf(0, cursor + length);
        if (nul === -1) return undefined;
        length = nul - cursor;
      }
      if (cursor + length >= end || data[cursor + length] !== 0) return undefined;
      if (isHidden) hidden.push(pathText(data.subarray(cursor, cursor + length)));
      // An entry is padded with 1 to 8 NULs to a multiple of 8 bytes (ondisk_ce_size in git).
      at = start + ((cursor - start + length + 8) & ~7);
    }
  }
  // Extensions: a 4-byte signature and a 4-byte size each, up to the checksum.
  while (at + 8 <= end) {
    const signature = data.toString('latin1', at, at + 4);
    if (signature === 'link' || signature === 'sdir') return undefined;
    at += 8 + data.readUInt32BE(at + 4);
  }
  return at === end ? hidden : undefined;
}

/** git's offset varint (varint.c `decode_varint`): 7 bits a byte, high bit "more", +1 per continuation. */
function readOffsetVarint(data: Buffer, at: number, end: number): { value: number; next: number } | undefined {
  if (at >= end) return undefined;
  let c = data[at++]!;
  let value = c & 0x7f;
  while (c & 0x80) {
    if (at >= end || value > 0xffffff) return undefined;
    value += 1;
    c = data[at++]!;
    value = (value << 7) + (c & 0x7f);
  }
  return { value, next: at };
}
