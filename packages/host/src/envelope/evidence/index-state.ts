import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { gitRecords, gitRecordSpans, type GitInvocation } from '../git/run-git.js';
import { GITLINK_MODE, isHiddenByIndexFlag, parseIndexEntry } from '../git/parse.js';
import { pathText } from '../path-text.js';

/** What the audit needs from the index (one streamed `git ls-files -z -s -v`). */
export interface IndexState {
  /** Paths carrying assume-unchanged or skip-worktree (the BEKO2210/SkillQuarry cordon step 4). */
  readonly hidden: string[];
  /** Submodule (gitlink) paths. */
  readonly gitlinks: string[];
  /** Tracked `.gitignore` files. */
  readonly gitignores: string[];
}

/**
 * Streams the index once; memory grows with the number of flagged, gitlink and `.gitignore`
 * entries only, so a 100,000-file index is fine (docs/envelopes.md).
 */
export async function readIndexState(inv: GitInvocation): Promise<IndexState> {
  const state: IndexState = { hidden: [], gitlinks: [], gitignores: [] };
  await gitRecords(inv, ['ls-files', '-z', '-s', '-v'], (record) => {
    const entry = parseIndexEntry(record);
    if (isHiddenByIndexFlag(entry)) state.hidden.push(entry.path);
    if (entry.stage !== 0) return;
    if (entry.mode === GITLINK_MODE) state.gitlinks.push(entry.path);
    else if (entry.path === '.gitignore' || entry.path.endsWith('/.gitignore')) state.gitignores.push(entry.path);
  });
  return state;
}

/**
 * Only the paths hidden by assume-unchanged or skip-worktree, from `git ls-files -z -v`
 * (`<tag> <path>`). What `check` needs on every run: the common `H ` records are skipped
 * without decoding, which keeps a 100,000-entry index cheap.
 */
export async function readHiddenPaths(inv: GitInvocation): Promise<string[]> {
  const hidden: string[] = [];
  await gitRecordSpans(inv, ['ls-files', '-z', '-v'], (data, start, end) => {
    if (end - start < 3 || data[start + 1] !== 0x20) throw new CordonError(ERROR_CODES.REPO_ERROR, `malformed git ls-files -v record: ${JSON.stringify(data.toString('latin1', start, Math.min(end, start + 200)))}`);
    const tag = data[start]!;
    if (tag === 0x48 /* H */) return;
    if (isHiddenByIndexFlag({ tag: String.fromCharCode(tag) })) hidden.push(pathText(data.subarray(start + 2, end)));
  });
  return hidden;
}

/** At most this many hidden paths are named in a message (the BEKO2210/SkillQuarry cordon). */
export const HIDDEN_NAMED = 10;

/**
 * "a, b, … (+N more)" for a list of names as they are shown (callers pass each path through
 * `displayPath`, which quotes what a terminal would not show; escaping again here printed a
 * quoted name as `\"a\\nb\"`).
 */
export function nameSome(shown: readonly string[], limit = HIDDEN_NAMED): string {
  const named = shown.slice(0, limit).join(', ');
  return shown.length > limit ? `${named} (+${shown.length - limit} more)` : named;
}
