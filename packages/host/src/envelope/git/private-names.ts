import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What cordon's private git directory (git/shadow.ts, `GIT_DIR` of every audit git command)
 * stands in for: git names that directory in its errors (`fatal: /tmp/cordon-git-…/index:
 * index file smaller than expected`), a path the user has never seen and cannot repair.
 */
export interface PrivateGitNames {
  /** The private directory, as `GIT_DIR` names it. */
  readonly dir: string;
  /** The repository's own git directory (`.git`, `.git/worktrees/<name>`, a `--separate-git-dir`). */
  readonly gitDir: string;
  /** The real index file the private `index` is a hard link or copy of (`--git-path index`). */
  readonly indexFile: string;
}

/**
 * `text` (git's stderr) with every path of the private directory `names.dir` named as what it
 * stands for: the directory itself as the real git directory (git calls it "not a git
 * repository" when the real objects cannot be read), its `index` as the real index file, and a
 * split index's `sharedindex.<id>` (a link to the real one) as the real file. Paths of files
 * that are cordon's own (its config, the arm-time rule files, `index.lock` beside its copy of
 * the index) stay as they are: an error about them is about the system temp directory they are
 * in. The directory's resolved path (a temp directory reached through a link) is matched too.
 * For error text only: resolving that path costs a system call.
 */
export function realGitNames(text: string, names: PrivateGitNames): string {
  let out = text;
  for (const dir of spellings(names.dir)) out = renamed(out, dir, names);
  return out;
}

/** `dir` and, when it differs, its resolved path. */
function spellings(dir: string): string[] {
  try {
    const real = realpathSync.native(dir);
    return real === dir ? [dir] : [dir, real];
  } catch {
    // Already removed (an interrupted check): git printed the name it was given.
    return [dir];
  }
}

/** One spelling of the private directory replaced: the directory, then what follows it up to a quote, blank or colon. */
function renamed(text: string, dir: string, names: PrivateGitNames): string {
  const escaped = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A longer name that merely begins with `dir` is not it: the match must end the path or go on with `/`.
  const path = new RegExp(`${escaped}(/[^\\s'":]*)?(?![^\\s'":/])`, 'g');
  return text.replace(path, (whole, rest: string | undefined) => standsFor(rest ?? '', names) ?? whole);
}

/** The real path behind `rest` (`''`, `/index`, …) of the private directory, or undefined for cordon's own files. */
function standsFor(rest: string, names: PrivateGitNames): string | undefined {
  const name = rest.replace(/^\/+/, '').replace(/\/+$/, '');
  if (name === '') return names.gitDir;
  if (name === 'index') return names.indexFile;
  if (/^sharedindex\.[0-9a-f]+$/.test(name)) return join(names.gitDir, name);
  return undefined;
}

/**
 * `text` (git's stderr of a command run in the user's repository, with `cwd` as its working
 * directory) with the git directory git names relative to it (`.git`, `.git/index`) named
 * absolute, as {@link realGitNames} names the paths of cordon's private git directory: every
 * git error names the repository's files the same way whichever command failed
 * (`fatal: /home/u/app/.git/index: index file smaller than expected`). Only a `.git` that
 * stands as a path of its own (after a blank, quote or the start of a line) and exists in
 * `cwd` is rewritten. For error text only: the check costs a system call.
 */
export function absoluteGitNames(text: string, cwd: string): string {
  const relative = /(^|[\s'"(])\.git(?=$|[\s'":/)])/gm;
  if (!relative.test(text)) return text;
  const dir = join(cwd, '.git');
  if (!existsSync(dir)) return text;
  return text.replace(relative, (_whole, before: string) => `${before}${dir}`);
}
