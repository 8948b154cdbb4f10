import { cutText } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { pathText, pathTextAt } from '../path-text.js';

/**
 * Parsers for git's NUL-separated machine formats. Each takes one record at a time (as
 * `gitRecords` streams them) so memory stays proportional to the number of changes, not to
 * the size of the repository.
 */

/** One changed path of `git diff --raw --numstat -z --no-renames`. */
export interface DiffEntry {
  /** Lossless text form of the path (see path-text.ts). */
  readonly path: string;
  /** Octal mode before/after (`000000` when the side is absent). */
  oldMode: string;
  newMode: string;
  /** Blob id of the old side (all zeros when the side is absent). */
  oldId: string;
  /** Blob id of the new side (all zeros for work-tree content git did not hash, or when the side is absent). */
  newId: string;
  /** Raw status letter: A, D, M, T, U, X. */
  status: string;
  /** Lines added/deleted; both null for a binary file. */
  added: number | null;
  deleted: number | null;
  /** Whether the numstat record was seen. */
  counted: boolean;
  /**
   * Why git could not read the work-tree side (permission denied, a FIFO in place of a file):
   * set by the work-tree diff for paths it then left out (evidence/tracked.ts), counts null.
   */
  unreadable?: string;
}

/** Mode of a gitlink (submodule) entry. */
export const GITLINK_MODE = '160000';

/**
 * Stateful parser for `git diff --raw --numstat -z --no-renames` output, whose raw section
 * (`:<old> <new> <oldid> <newid> <status>` NUL `<path>` NUL) precedes its numstat section
 * (`<added>\t<deleted>\t<path>` NUL, `-\t-\t` for binary). Malformed input throws
 * `CORDON_REPO_ERROR`.
 */
export class DiffParser {
  readonly entries = new Map<string, DiffEntry>();
  #rawHeader: string | undefined;

  /** @param onEntry called with each path as its `--raw` record arrives (before its counts). */
  constructor(private readonly onEntry?: (path: string) => void) {}

  /** Feeds one NUL-terminated record (without its NUL). */
  push(record: Buffer): void {
    this.pushSpan(record, 0, record.length);
  }

  /**
   * {@link push} of the record `data[start, end)` (as `gitRecordSpans` hands them): the numstat
   * section arrives in one burst after git has counted every file, and git cannot exit before it
   * is read, so its records are parsed in place, without a Buffer or string per field.
   */
  pushSpan(data: Buffer, start: number, end: number): void {
    if (this.#rawHeader !== undefined) {
      const header = this.#rawHeader;
      this.#rawHeader = undefined;
      if (end === start) throw malformed('diff --raw', 'empty path');
      const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(header);
      if (!m) throw malformed('diff --raw', header);
      const path = pathTextAt(data, start, end);
      this.entries.set(path, { path, oldMode: m[1]!, newMode: m[2]!, oldId: m[3]!, newId: m[4]!, status: m[5]!, added: 0, deleted: 0, counted: false });
      this.onEntry?.(path);
      return;
    }
    if (data[start] === 0x3a /* : */) {
      this.#rawHeader = data.toString('latin1', start, end);
      return;
    }
    const parsed = numstatAt(data, start, end);
    const entry = this.entries.get(parsed.path);
    if (!entry) throw malformed('diff --numstat', `path without a raw record: ${parsed.path}`);
    entry.added = parsed.added;
    entry.deleted = parsed.deleted;
    entry.counted = true;
  }

  /** Checks the stream ended cleanly and returns the entries. */
  finish(): Map<string, DiffEntry> {
    if (this.#rawHeader !== undefined) throw malformed('diff --raw', 'record without a path');
    return this.entries;
  }
}

/**
 * Parses one `--numstat -z` record without renames: `<added>\t<deleted>\t<path>`; `-\t-\t` marks
 * a binary file (added/deleted null). Throws `CORDON_REPO_ERROR` for anything else
 * (`bad`, an empty path, a non-numeric count).
 */
export function parseNumstat(record: Buffer): { path: string; added: number | null; deleted: number | null } {
  return numstatAt(record, 0, record.length);
}

/** {@link parseNumstat} of the record `data[start, end)`. */
function numstatAt(data: Buffer, start: number, end: number): { path: string; added: number | null; deleted: number | null } {
  const bad = () => malformed('diff --numstat', data.toString('latin1', start, end));
  // Each count is `-` (binary) or decimal digits, ended by a tab.
  let at = start;
  const count = (): number | null => {
    if (data[at] === 0x2d /* - */ && data[at + 1] === 0x09) {
      at += 2;
      return null;
    }
    const first = at;
    let n = 0;
    while (at < end && data[at]! >= 0x30 && data[at]! <= 0x39) n = n * 10 + (data[at++]! - 0x30);
    if (at === first || at >= end || data[at] !== 0x09) throw bad();
    at += 1;
    return n;
  };
  const added = count();
  const deleted = count();
  if ((added === null) !== (deleted === null)) throw bad();
  if (at === end) throw malformed('diff --numstat', 'empty path');
  return { path: pathTextAt(data, at, end), added, deleted };
}

/** One record of `git ls-files -z -s -v`. */
export interface IndexEntry {
  /** `-v` tag: `H` cached, `S` skip-worktree, lowercase = assume-unchanged, `M` unmerged, … */
  readonly tag: string;
  readonly mode: string;
  readonly id: string;
  readonly stage: number;
  readonly path: string;
}

/**
 * Parses one `git ls-files -z -s -v` record: `<tag> <mode> <id> <stage>\t<path>`. Throws
 * `CORDON_REPO_ERROR` when malformed (the BEKO2210/SkillQuarry cordon H22: a tag with no path).
 */
export function parseIndexEntry(record: Buffer): IndexEntry {
  const tab = record.indexOf(9);
  const head = (tab === -1 ? record : record.subarray(0, tab)).toString('latin1');
  const m = /^(\S) (\d{6}) ([0-9a-f]+) (\d)$/.exec(head);
  if (!m || tab === -1 || tab === record.length - 1) throw malformed('ls-files -s -v', record.toString('latin1'));
  return { tag: m[1]!, mode: m[2]!, id: m[3]!, stage: Number(m[4]), path: pathText(record.subarray(tab + 1)) };
}

/** True when the entry hides its work-tree state: assume-unchanged (lowercase tag) or skip-worktree (`S`). */
export function isHiddenByIndexFlag(entry: Pick<IndexEntry, 'tag'>): boolean {
  return entry.tag === 'S' || (entry.tag >= 'a' && entry.tag <= 'z');
}

function malformed(what: string, detail: string): CordonError {
  return new CordonError(ERROR_CODES.REPO_ERROR, `malformed git ${what} record: ${JSON.stringify(cutText(detail, 200))}`);
}
