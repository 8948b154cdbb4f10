import { gitRecords, type GitInvocation } from '../git/run-git.js';
import { GITLINK_MODE, isHiddenByIndexFlag, parseIndexEntry } from '../git/parse.js';

/** What the audit needs from the index (one streamed `git ls-files -z -s -v`). */
export interface IndexState {
  /** Paths carrying assume-unchanged or skip-worktree (research §5 step 4, §6.5 item 1). */
  readonly hidden: string[];
  /** Submodule (gitlink) paths. */
  readonly gitlinks: string[];
  /** Tracked `.gitignore` files. */
  readonly gitignores: string[];
}

/**
 * Streams the index once; memory grows with the number of flagged, gitlink and `.gitignore`
 * entries only, so a 100,000-file index is fine (research §18.3 item 16).
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

/** At most this many hidden paths are named in a message (research §3). */
export const HIDDEN_NAMED = 10;

/** "a, b, … (+N more)" for a list of paths. */
export function nameSome(paths: readonly string[], limit = HIDDEN_NAMED): string {
  const shown = paths.slice(0, limit).map((p) => JSON.stringify(p).slice(1, -1));
  return paths.length > limit ? `${shown.join(', ')} (+${paths.length - limit} more)` : shown.join(', ');
}
