import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isTempName } from '../../io/atomic-write.js';
import { fileKind } from '../../io/safe-read.js';
import { baseGitEnv, type RepoLocation } from '../git/repo.js';
import { git } from '../git/run-git.js';

/**
 * The names cordon writes inside its state directory: `config.json`, `snapshot.json`,
 * `state.json`, `audit.json`, `attempt-<n>.json`, and the temp files of its atomic writes
 * (`isTempName`). Anything else in the directory is not cordon's.
 */
export function isOwnStateName(name: string): boolean {
  return /^(config|snapshot|state|audit)\.json$/.test(name) || /^attempt-[1-9][0-9]{0,8}\.json$/.test(name) || isTempName(name);
}

/** Whose a state directory (or one of cordon's renamed copies of it) is. */
export type StateDirOwner =
  | { readonly kind: 'absent' }
  | { readonly kind: 'own' }
  /**
   * `reason` says in words what makes it someone else's (no file content, only names and types);
   * `tracked` whether git tracks anything at or under it (undefined when git was not asked or
   * could not answer), so the advice can say `git mv` or `mv`. When its entries are what
   * makes it someone else's, `strays` names them (as listed, sorted) and `holdsEnvelope` says
   * whether cordon's own files are there too (an envelope with a stray file in it, which
   * removing the file mends; `cordon reset` removes the envelope and leaves the file).
   */
  | ({ readonly kind: 'foreign' } & ForeignDir);

/** What makes a state directory someone else's, for the refusal (store.ts `foreignState`). */
export interface ForeignDir {
  readonly reason: string;
  readonly tracked?: boolean;
  /** Entries cordon does not write (names; an own name of the wrong type too). */
  readonly strays?: readonly string[];
  /** Whether cordon's own files (an own name, a regular file) are there beside {@link strays}. */
  readonly holdsEnvelope?: boolean;
}

/** At most this many names are quoted in a reason. */
const NAMED = 5;

/**
 * Recognises cordon's own state directory by what it holds: it is a real
 * directory (not a link), every entry is a regular file with a name cordon writes
 * ({@link isOwnStateName}), and git tracks nothing under it (`git ls-files` on `repoPath`,
 * the directory's path relative to the work tree, when given). A directory that fails any of
 * these is `foreign`: cordon never deletes, renames or writes into it.
 *
 * When git cannot answer (a damaged index: `index file smaller than expected`), a directory
 * whose every entry is one of cordon's own files by name and type is still `own`, so that
 * `cordon reset` works until git is repaired: removing it loses nothing of the user's. Anything
 * else in it stays `foreign`, with `tracked` unknown.
 */
export async function stateDirOwner(dir: string, loc: RepoLocation, repoPath?: string): Promise<StateDirOwner> {
  let stat;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'foreign', reason: `it cannot be examined (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, ...trackedness(await trackedPaths(loc, repoPath)) };
  }
  if (!stat.isDirectory()) return { kind: 'foreign', reason: `it is ${fileKind(stat)}, not a directory`, ...trackedness(await trackedPaths(loc, repoPath)) };
  // Asked first: what git tracks is the stronger reason, and it decides between `git mv` and `mv`.
  const tracked = await trackedPaths(loc, repoPath);
  if (tracked !== undefined && tracked.length > 0) return { kind: 'foreign', reason: `git tracks ${quote(tracked)}`, tracked: true };
  const known = trackedness(tracked);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    return { kind: 'foreign', reason: `it cannot be listed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, ...known };
  }
  const strangers: string[] = [];
  const strays: string[] = [];
  let holdsEnvelope = false;
  for (const name of names.sort()) {
    if (!isOwnStateName(name)) {
      strangers.push(name);
      strays.push(name);
      continue;
    }
    try {
      const entry = lstatSync(join(dir, name));
      if (!entry.isFile()) {
        strangers.push(`${name} (${fileKind(entry)})`);
        strays.push(name);
      } else holdsEnvelope = true;
    } catch {
      // Removed meanwhile: nothing to protect.
    }
  }
  if (strangers.length > 0) return { kind: 'foreign', reason: `it holds ${quote(strangers)}, which cordon does not write`, ...known, strays, holdsEnvelope };
  return { kind: 'own' };
}

/** What git tracks at or under `repoPath`; undefined when not asked (no `repoPath`) or git cannot say (a damaged index). */
async function trackedPaths(loc: RepoLocation, repoPath: string | undefined): Promise<string[] | undefined> {
  return repoPath === undefined ? undefined : trackedUnder(loc, repoPath).catch(() => undefined);
}

/** `{tracked}` of a path that is not cordon's, from {@link trackedPaths}' answer; `{}` when unknown. */
function trackedness(tracked: readonly string[] | undefined): { tracked?: boolean } {
  return tracked === undefined ? {} : { tracked: tracked.length > 0 };
}

/** Paths git tracks at or under `repoPath` (index entries; `git ls-files`, fsmonitor off). */
async function trackedUnder(loc: RepoLocation, repoPath: string): Promise<string[]> {
  const inv = { cwd: loc.root, env: baseGitEnv(), gitBinary: loc.gitBinary };
  const { stdout } = await git(inv, ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--', `:(literal)${repoPath}`]);
  return stdout.toString('utf8').split('\0').filter(Boolean);
}

function quote(names: readonly string[]): string {
  const shown = names.slice(0, NAMED).map((n) => JSON.stringify(n)).join(', ');
  return names.length > NAMED ? `${shown} and ${names.length - NAMED} more` : shown;
}

/**
 * A directory on the same file system as `root` where cordon can build or drop its state away
 * from the work tree (so a killed arm or reset leaves nothing `git status` shows): the work
 * tree's git directory when it is on the same device, else the work-tree root itself.
 */
export function scratchParent(loc: Pick<RepoLocation, 'root' | 'gitDir'>): { dir: string; inGitDir: boolean } {
  try {
    if (statSync(loc.gitDir).dev === statSync(loc.root).dev) return { dir: loc.gitDir, inGitDir: true };
  } catch {
    // Fall back to the root.
  }
  return { dir: loc.root, inGitDir: false };
}
