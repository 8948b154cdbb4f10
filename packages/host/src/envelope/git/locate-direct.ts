import { lstatSync, statSync } from 'node:fs';
import { realPath } from '../../io/real-path.js';
import { join, resolve } from 'node:path';
import { readRegularFile } from '../../io/safe-read.js';
import type { RepoLocation } from './repo.js';

/**
 * A loose ref or HEAD file: one SHA-1 object id and a newline (a repository without
 * `[extensions]`, the only kind read here, names its objects by SHA-1).
 */
const ID_LINE = /^([0-9a-f]{40})\n?$/;
/**
 * HEAD as a symbolic ref to a branch with an ASCII name (the file is read as Latin-1: a UTF-8
 * name would be looked up under other bytes on disk while its `packed-refs` line still matched,
 * which could answer a stale id; such names are left to git).
 */
const SYMREF = /^ref: (refs\/heads\/[^\0-\x20\x7f-\xff~^:?*[\\]+)\n?$/;
/**
 * Repository config that can move the work tree or the git directory, change what a ref or an
 * object is, or that git may refuse: `core.worktree`, `core.bare = true`, `[include]` and
 * `[includeIf]`, any `[extensions]` (reftable, SHA-256, worktree config, partial clones). A
 * config mentioning any of them is left to git.
 */
const LEFT_TO_GIT = /worktree|include|extensions|\bbare\s*=\s*(true|yes|on|1)\b/i;

/**
 * What `git rev-parse` reports for a work tree whose root is `dir` (git/repo.ts
 * `discoverRepoAndHead`: the location and HEAD's commit id), read from the files of `dir/.git`
 * without starting git: `cordon check` spends about 3 ms of its main thread starting that
 * process and waits for it (docs/ARCHITECTURE.md "Where the time goes").
 *
 * Only for the layout where git's answer is certain (gitrepository-layout(5), setup.c):
 * `dir` is its own real path and holds `.git` as a real directory, both owned by this user (so
 * git's `safe.directory` check passes), with `HEAD`, `refs/` and `objects/`, no `commondir`
 * (not a linked work tree), repository format 0 or 1, a config that sets nothing of
 * {@link LEFT_TO_GIT}, and HEAD either a commit id or `ref: refs/heads/<name>` whose loose file
 * or `packed-refs` line holds one. Anything else (an unborn branch included) returns
 * `undefined`, and the caller asks git. Never throws.
 */
export function locateDirect(dir: string): { loc: RepoLocation; head: string } | undefined {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return undefined;
  try {
    const root = resolve(dir);
    if (realPath(root) !== root) return undefined;
    const gitDir = join(root, '.git');
    const uid = process.getuid();
    const top = lstatSync(root);
    const dotGit = lstatSync(gitDir);
    if (!top.isDirectory() || !dotGit.isDirectory() || top.uid !== uid || dotGit.uid !== uid) return undefined;
    if (lstatSync(join(gitDir, 'commondir'), { throwIfNoEntry: false })) return undefined;
    if (!statSync(join(gitDir, 'refs')).isDirectory()) return undefined;
    const objectsDir = realPath(join(gitDir, 'objects'));
    if (!statSync(objectsDir).isDirectory()) return undefined;
    const config = small(join(gitDir, 'config'), 1 << 20);
    const format = /repositoryformatversion\s*=\s*(\d+)/i.exec(config)?.[1];
    if (LEFT_TO_GIT.test(config) || (format !== undefined && format !== '0' && format !== '1')) return undefined;
    const head = headCommit(gitDir);
    if (head === undefined) return undefined;
    const loc: RepoLocation = {
      root,
      gitDir,
      commonDir: gitDir,
      objectsDir,
      indexFile: join(gitDir, 'index'),
      excludeFile: join(gitDir, 'info', 'exclude'),
      attributesFile: join(gitDir, 'info', 'attributes'),
      lockFile: join(gitDir, 'cordon.lock'),
      gitBinary: 'git',
    };
    return { loc, head };
  } catch {
    return undefined;
  }
}

/** HEAD's commit id from `HEAD`, the branch's loose ref, or `packed-refs` (a loose ref wins, as in git); undefined when none holds one. */
function headCommit(gitDir: string): string | undefined {
  const head = small(join(gitDir, 'HEAD'), 4096);
  const detached = ID_LINE.exec(head)?.[1];
  if (detached) return detached;
  const ref = SYMREF.exec(head)?.[1];
  // git-check-ref-format(1): no `..`, `//`, `@{`, component starting with `.` or ending `.lock`.
  if (!ref || /\.\.|\/\/|@\{|\/\.|\.lock(\/|$)|[/.]$/.test(ref)) return undefined;
  const loose = lstatSync(join(gitDir, ref), { throwIfNoEntry: false });
  if (loose) return loose.isFile() ? ID_LINE.exec(small(join(gitDir, ref), 4096))?.[1] : undefined;
  const packed = lstatSync(join(gitDir, 'packed-refs'), { throwIfNoEntry: false });
  if (!packed?.isFile()) return undefined;
  const suffix = ` ${ref}`;
  for (const line of small(join(gitDir, 'packed-refs'), 64 << 20).split('\n')) {
    if (!line.endsWith(suffix)) continue;
    const id = line.slice(0, -suffix.length);
    return ID_LINE.test(id) ? id : undefined;
  }
  return undefined;
}

/** A regular file (never through a link) of at most `maxBytes`, as Latin-1 text. */
function small(path: string, maxBytes: number): string {
  return readRegularFile(path, { maxBytes, links: 'never' }).toString('latin1');
}
