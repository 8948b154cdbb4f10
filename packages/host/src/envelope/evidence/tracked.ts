import { DiffParser, type DiffEntry } from '../git/parse.js';
import { gitRecords, type GitCallOptions, type GitInvocation } from '../git/run-git.js';

/**
 * Options every audit diff runs with (research §6.1, §20): rename detection off (both sides of a
 * rename count), no external diff, no textconv, a fixed algorithm, submodules compared by commit
 * only (asking a submodule whether it is dirty would run git with the submodule's own config;
 * cordon fingerprints submodule work trees instead), paths relative to the root.
 */
export const DIFF_OPTIONS = ['--raw', '--numstat', '-z', '--no-abbrev', '--no-renames', '--no-ext-diff', '--no-textconv', '--diff-algorithm=myers', '--ignore-submodules=dirty', '--no-relative'] as const;

/**
 * Tracked changes between `from` (a commit) and the work tree, or `to` (a commit) when given.
 * The work-tree form covers staged and unstaged edits, intent-to-add files and anything
 * committed since `from` (research §6.1 "Diff shape"). `onPath` hears each changed path as
 * git names it, while git still counts lines (git prints every `--raw` record first).
 */
export async function collectTracked(inv: GitInvocation, from: string, to?: string, onPath?: (path: string) => void, options?: GitCallOptions): Promise<Map<string, DiffEntry>> {
  const parser = new DiffParser(onPath);
  await gitRecords(inv, ['diff', ...DIFF_OPTIONS, from, ...(to ? [to] : []), '--'], (r) => parser.push(r), options);
  return parser.finish();
}
