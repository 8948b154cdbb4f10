import { displayPath, pathText } from '../path-text.js';
import { ownReports } from '../evidence/own-reports.js';
import { nameSome } from '../evidence/index-state.js';
import { resolveCommit, type RepoLocation } from './repo.js';
import { git, type GitInvocation } from './run-git.js';

/**
 * Why the work tree is not exactly commit `head`, or undefined when it is: the real `HEAD`
 * must resolve to `head`, and `git status --porcelain=v1 -z --untracked-files=normal` (run
 * through `inv`, a shadow git directory whose HEAD is `head`) must list nothing — no staged or
 * unstaged tracked change and no untracked file that is not ignored. Untracked files count
 * because a verifier sees them (an untracked test or config file can change its verdict);
 * ignored files (build output, dependencies) are allowed, as at arm time (the BEKO2210/SkillQuarry cordon).
 * Throws `CORDON_REPO_ERROR` when git fails.
 */
export async function workTreeMismatch(loc: RepoLocation, inv: GitInvocation, head: string): Promise<string | undefined> {
  const current = await resolveCommit(loc, 'HEAD');
  if (current !== head) return `HEAD is ${current.slice(0, 12)}, not ${head.slice(0, 12)}`;
  const { stdout } = await git(inv, ['status', '--porcelain=v1', '-z', '--untracked-files=normal', '--ignore-submodules=dirty']);
  const records = stdout.toString('latin1').split('\0').filter(Boolean);
  // A rename/copy record is followed by its source path; -z keeps `XY path` first either way.
  const own = ownReports(loc);
  const paths: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const path = pathText(Buffer.from(r.slice(3), 'latin1'));
    // A report cordon wrote (`check --out cordon.sarif`) is not a change (evidence/own-reports.ts).
    if (!(r.startsWith('??') && (own(path) || (path.endsWith('/') && (await onlyOwnBelow(inv, path, own)))))) paths.push(displayPath(path));
    if (r[0] === 'R' || r[0] === 'C') i++;
  }
  if (paths.length > 0) return `the work tree has changes that are not committed in it: ${nameSome(paths)}`;
  return undefined;
}

/** True when the untracked directory `dir` holds nothing but reports cordon wrote (`--out reports/x.sarif`). */
async function onlyOwnBelow(inv: GitInvocation, dir: string, own: (path: string) => boolean): Promise<boolean> {
  const { stdout } = await git(inv, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', dir]);
  const records = stdout.toString('latin1').split('\0').filter(Boolean);
  return records.length > 0 && records.every((r) => r.startsWith('??') && own(pathText(Buffer.from(r.slice(3), 'latin1'))));
}
