import { closeSync, constants, openSync } from 'node:fs';
import { CordonError } from '../../errors/index.js';
import { lstatKind } from '../../io/stat-direct.js';
import { DiffParser, GITLINK_MODE, type DiffEntry } from '../git/parse.js';
import { gitRecordSpans, type GitCallOptions, type GitInvocation } from '../git/run-git.js';
import { hasEscapedBytes } from '../path-text.js';
import { absPath } from './fs-path.js';

/**
 * Options every audit diff runs with (the BEKO2210/SkillQuarry cordon): rename detection off (both sides of a
 * rename count), no external diff, no textconv, a fixed algorithm, submodules compared by commit
 * only (asking a submodule whether it is dirty would run git with the submodule's own config;
 * cordon fingerprints submodule work trees instead), paths relative to the root.
 */
export const DIFF_OPTIONS = ['--raw', '--numstat', '-z', '--no-abbrev', '--no-renames', '--no-ext-diff', '--no-textconv', '--diff-algorithm=myers', '--ignore-submodules=dirty', '--no-relative'] as const;

/**
 * Tracked changes between `from` (a commit) and the work tree, or `to` (a commit) when given.
 * The work-tree form covers staged and unstaged edits, intent-to-add files and anything
 * committed since `from` (the BEKO2210/SkillQuarry cordon). `onPath` hears each changed path as
 * git names it, while git still counts lines (git prints every `--raw` record first); after a
 * diff git could not finish (a file it cannot read) it may hear a path twice.
 */
export async function collectTracked(inv: GitInvocation, from: string, to?: string, onPath?: (path: string) => void, options?: GitCallOptions): Promise<Map<string, DiffEntry>> {
  const parser = new DiffParser(onPath);
  try {
    await gitRecordSpans(inv, ['diff', ...DIFF_OPTIONS, from, ...(to ? [to] : []), '--'], (data, start, end) => parser.pushSpan(data, start, end), options);
  } catch (error) {
    // Only the work tree can hold what git cannot read; a stopped or timed-out git is no such case.
    if (to !== undefined || !(error instanceof CordonError) || error.details.exit_code !== 128) throw error;
    return collectAroundUnreadable(inv, from, error, onPath, options);
  }
  return parser.finish();
}

/**
 * The work-tree diff once git failed (`fatal: cannot hash <path>`): a changed tracked path git
 * cannot read (no read permission; a FIFO, socket or device in place of a file) stops the whole
 * `--numstat` diff, since counting lines reads every changed file. The changed paths are listed
 * again without counts (`--raw` alone reads no file), those whose current content cannot be read
 * are found, and the counted diff runs again without them; they come back with no counts and
 * with `unreadable` saying why, for the audit to reject (exit 3) instead of refusing. When none
 * is found, `failure` is thrown as it was.
 */
async function collectAroundUnreadable(inv: GitInvocation, from: string, failure: CordonError, onPath: ((path: string) => void) | undefined, options?: GitCallOptions): Promise<Map<string, DiffEntry>> {
  const listing = new DiffParser();
  await gitRecordSpans(inv, ['diff', ...DIFF_OPTIONS.filter((o) => o !== '--numstat'), from, '--'], (data, start, end) => listing.pushSpan(data, start, end), options);
  const unreadable = new Map<string, DiffEntry>();
  for (const entry of listing.finish().values()) {
    if (entry.newMode === '000000' || entry.newMode === GITLINK_MODE) continue;
    const why = unreadableReason(absPath(inv.cwd, entry.path));
    if (why === undefined) continue;
    // A path argv cannot carry exactly (bytes that are not UTF-8) cannot be left out of the diff.
    if (hasEscapedBytes(entry.path)) throw failure;
    unreadable.set(entry.path, { ...entry, added: null, deleted: null, counted: true, unreadable: why });
  }
  if (unreadable.size === 0) throw failure;
  const parser = new DiffParser(onPath);
  const leftOut = [...unreadable.keys()].map((path) => `:(top,literal,exclude)${path}`);
  await gitRecordSpans(inv, ['diff', ...DIFF_OPTIONS, from, '--', ':(top)', ...leftOut], (data, start, end) => parser.pushSpan(data, start, end), options);
  const entries = parser.finish();
  for (const [path, entry] of unreadable) {
    entries.set(path, entry);
    onPath?.(path);
  }
  return entries;
}

/**
 * Why git could not read the work-tree file at `abs` for a diff, or undefined when it can: a
 * regular file that cannot be opened for reading, or a type git does not store (FIFO, socket,
 * device). A symlink (git reads its target text) and a missing path are readable.
 */
function unreadableReason(abs: string | Buffer): string | undefined {
  let kind;
  try {
    kind = lstatKind(abs);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? undefined : (error as Error).message;
  }
  if (!kind || kind.type === 'symlink' || kind.type === 'directory') return undefined;
  if (kind.type !== 'file') return 'not a regular file or symlink';
  try {
    closeSync(openSync(abs, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Changes between `from` (a commit) and the index (`git diff --cached`): what the next `git
 * commit` would take. Needed beside {@link collectTracked}, whose work-tree diff cannot see a
 * change that exists only in the index — staged, then the work tree restored.
 */
export async function collectStaged(inv: GitInvocation, from: string, options?: GitCallOptions): Promise<Map<string, DiffEntry>> {
  const parser = new DiffParser();
  await gitRecordSpans(inv, ['diff', '--cached', ...DIFF_OPTIONS, from, '--'], (data, start, end) => parser.pushSpan(data, start, end), options);
  return parser.finish();
}

/**
 * The tracked changes the audit counts: every path of the work-tree diff `tracked` and of the
 * index diff `staged`. A path in both counts the larger of its two line counts on each side
 * (either version may be committed), and is binary when either diff says so; a path only in
 * `staged` is an index-only change. `tracked` is updated and returned.
 */
export function mergeStaged(tracked: Map<string, DiffEntry>, staged: ReadonlyMap<string, DiffEntry>): Map<string, DiffEntry> {
  for (const [path, entry] of staged) {
    const seen = tracked.get(path);
    if (!seen) {
      tracked.set(path, entry);
      continue;
    }
    if (seen.added === null || entry.added === null || seen.deleted === null || entry.deleted === null) {
      seen.added = null;
      seen.deleted = null;
    } else {
      seen.added = Math.max(seen.added, entry.added);
      seen.deleted = Math.max(seen.deleted, entry.deleted);
    }
  }
  return tracked;
}
