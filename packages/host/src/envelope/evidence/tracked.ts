import { DiffParser, type DiffEntry } from '../git/parse.js';
import { gitRecordSpans, type GitCallOptions, type GitInvocation } from '../git/run-git.js';

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
 * git names it, while git still counts lines (git prints every `--raw` record first).
 */
export async function collectTracked(inv: GitInvocation, from: string, to?: string, onPath?: (path: string) => void, options?: GitCallOptions): Promise<Map<string, DiffEntry>> {
  const parser = new DiffParser(onPath);
  await gitRecordSpans(inv, ['diff', ...DIFF_OPTIONS, from, ...(to ? [to] : []), '--'], (data, start, end) => parser.pushSpan(data, start, end), options);
  return parser.finish();
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
