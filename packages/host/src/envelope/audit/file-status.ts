import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { sha1Hex, sha256Hex } from '../../util/hash.js';
import { absPath } from '../evidence/fs-path.js';
import type { DiffEntry } from '../git/parse.js';
import { displayPath } from '../path-text.js';

/**
 * How one changed path changed, in the words of git's `--raw` status letters (git-diff(1), "Raw
 * output format"): `A` added, `M` modified, `D` deleted, `T` type changed (a file became a
 * symlink, say), `U` unmerged, `X` unknown. An untracked file is `added`; a submodule whose work
 * tree changed is `modified`.
 */
export type FileStatus = 'added' | 'modified' | 'deleted' | 'type-changed' | 'unmerged' | 'unknown';

const BY_LETTER: Readonly<Record<string, FileStatus>> = { A: 'added', M: 'modified', D: 'deleted', T: 'type-changed', U: 'unmerged' };

/** The {@link FileStatus} of a `--raw` status letter (`unknown` for `X` and anything new). */
export function statusOfLetter(letter: string): FileStatus {
  return BY_LETTER[letter] ?? 'unknown';
}

/**
 * A deleted path and an added one with the same content: shown as a rename (`old -> new`) in the
 * verdict. The audit itself runs without rename detection and counts both paths.
 */
export interface ShownRename {
  readonly from: string;
  readonly to: string;
}

const ZERO_ID = /^0+$/;

/**
 * The renames to show, sorted by their new path: each deletion whose old blob id is the new blob
 * id of an addition, paired one to one in git's (path) order. git gives an addition's id when the
 * work-tree file is the index's (`git mv`, `git add`) or in a committed range; for an untracked
 * file (a plain `mv`) the id is computed from `untracked` when a deletion is still unpaired.
 */
export function findRenames(entries: Iterable<DiffEntry>, untracked?: UntrackedBlobs): ShownRename[] {
  const deleted = new Map<string, string[]>();
  const added: Array<{ path: string; id: string }> = [];
  for (const e of entries) {
    if (e.status === 'D' && !ZERO_ID.test(e.oldId)) {
      const paths = deleted.get(e.oldId);
      if (paths) paths.push(e.path);
      else deleted.set(e.oldId, [e.path]);
    }
    else if (e.status === 'A' && !ZERO_ID.test(e.newId)) added.push({ path: e.path, id: e.newId });
  }
  if (deleted.size === 0) return [];
  const renames: ShownRename[] = [];
  let unpaired = [...deleted.values()].reduce((n, paths) => n + paths.length, 0);
  const pair = (to: string, id: string) => {
    const from = deleted.get(id)?.shift();
    if (from === undefined) return;
    renames.push({ from, to });
    unpaired -= 1;
  };
  for (const a of added) pair(a.path, a.id);
  // A plain `mv`: the new file is untracked, and git gave no id for it; its blob id is computed.
  if (untracked && unpaired > 0) {
    for (const [path, id] of untrackedBlobIds(untracked)) {
      pair(path, id);
      if (unpaired === 0) break;
    }
  }
  return renames.sort((x, y) => (x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
}

/** Untracked files that may be the new side of a rename (see {@link untrackedBlobIds}). */
export interface UntrackedBlobs {
  readonly root: string;
  /** Untracked paths with their measured sizes (`bytes`). */
  readonly sizes: ReadonlyMap<string, { readonly bytes: number }>;
  /** The repository's object format (`extensions.objectformat`). */
  readonly format: 'sha1' | 'sha256';
}

/** Untracked files hashed for {@link findRenames} at most, bytes of each, and bytes in all. */
const HASHED_FILES = 256;
const HASHED_FILE_BYTES = 1 << 20;
const HASHED_TOTAL_BYTES = 8 << 20;

/**
 * The blob id git would give each untracked regular file as it is (`blob <size>\0<bytes>`
 * hashed; git-hash-object(1) without filters, so a file a clean filter would change is not
 * matched): at most {@link HASHED_FILES} files of at most 1 MiB, 8 MiB in all, since this only
 * decides how the verdict shows a rename. Runs only when a deletion is left unpaired, so a check
 * without one reads nothing more. A file that cannot be read is skipped.
 */
function* untrackedBlobIds(u: UntrackedBlobs): Generator<[string, string]> {
  let hashed = 0;
  let total = 0;
  for (const [path, { bytes }] of u.sizes) {
    if (bytes > HASHED_FILE_BYTES || path.endsWith('/')) continue;
    total += bytes;
    if (++hashed > HASHED_FILES || total > HASHED_TOTAL_BYTES) return;
    const content = readPlainFile(absPath(u.root, path), bytes);
    if (!content) continue;
    const blob = Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]);
    yield [path, u.format === 'sha256' ? sha256Hex(blob) : sha1Hex(blob)];
  }
}

/** The bytes of the regular file at `abs` (no link followed, nothing that blocks), or undefined. */
function readPlainFile(abs: string | Buffer, expected: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > HASHED_FILE_BYTES || st.size !== expected) return undefined;
    const buf = Buffer.alloc(st.size);
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, at);
      if (n === 0) return undefined;
      at += n;
    }
    return buf;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * What a path's change adds to a line naming it, or `''`: `deleted`, `added`, `type changed`,
 * `unmerged`, or for either side of a rename `renamed old -> new` (paths escaped by
 * {@link displayPath}). A modified path needs no word.
 */
export function changeWords(status: FileStatus | undefined, rename: ShownRename | undefined): string {
  if (rename) return `renamed ${displayPath(rename.from)} -> ${displayPath(rename.to)}`;
  if (status === undefined || status === 'modified') return '';
  return status === 'type-changed' ? 'type changed' : status;
}

/** Each path of `renames`, either side, to its rename. */
export function renamesByPath(renames: readonly ShownRename[] | undefined): Map<string, ShownRename> {
  const byPath = new Map<string, ShownRename>();
  for (const r of renames ?? []) {
    byPath.set(r.from, r);
    byPath.set(r.to, r);
  }
  return byPath;
}
