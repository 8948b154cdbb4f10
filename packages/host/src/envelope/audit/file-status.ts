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
 * work-tree file is the index's (`git mv`, `git add`) or in a committed range. A plain `mv`
 * leaves the new file untracked, without an id: it shows as a deletion and an addition. Hashing
 * untracked files to pair them cost a check of 1,250 changed paths (250 of them such moves) 29 %
 * more instructions (`scripts/instructions.sh`, the 20,000-file bench repository) for a word in
 * the verdict, so it is not done.
 */
export function findRenames(entries: Iterable<DiffEntry>): ShownRename[] {
  const deleted = new Map<string, string[]>();
  const added: Array<{ path: string; id: string }> = [];
  for (const e of entries) {
    if (e.status === 'D' && !ZERO_ID.test(e.oldId)) {
      const paths = deleted.get(e.oldId);
      if (paths) paths.push(e.path);
      else deleted.set(e.oldId, [e.path]);
    } else if (e.status === 'A' && !ZERO_ID.test(e.newId)) added.push({ path: e.path, id: e.newId });
  }
  if (deleted.size === 0) return [];
  const renames: ShownRename[] = [];
  for (const a of added) {
    const from = deleted.get(a.id)?.shift();
    if (from !== undefined) renames.push({ from, to: a.path });
  }
  return renames.sort((x, y) => (x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
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
