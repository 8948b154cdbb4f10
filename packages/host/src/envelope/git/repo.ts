import { requireDirectory } from '../../io/directory.js';
import { realPath } from '../../io/real-path.js';
import { isAbsolute, resolve } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { git, type GitInvocation } from './run-git.js';

/** Where a work tree and its git directories are (all absolute, symlinks resolved). */
export interface RepoLocation {
  /** Work-tree root (`git rev-parse --show-toplevel`). */
  readonly root: string;
  /** This work tree's git directory (`.git`, or `.git/worktrees/<name>` in a linked work tree). */
  readonly gitDir: string;
  /** The common directory shared by linked work trees. */
  readonly commonDir: string;
  /** Object database (`--git-path objects`). */
  readonly objectsDir: string;
  /** Index file (`--git-path index`). */
  readonly indexFile: string;
  /** `--git-path info/exclude` (shared in the common directory). */
  readonly excludeFile: string;
  /** `--git-path info/attributes`. */
  readonly attributesFile: string;
  /** `--git-path cordon.lock` (per work tree: the BEKO2210/SkillQuarry cordon). */
  readonly lockFile: string;
  /** git executable used for every command. */
  readonly gitBinary: string;
}

/** A full object name: 40 hex digits (SHA-1) or 64 (SHA-256), lowercase as git prints them. */
export const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The environment every cordon git command starts from: the caller's, minus every `GIT_*`
 * variable (`GIT_DIR`, `GIT_INDEX_FILE`, `GIT_EXTERNAL_DIFF`, `GIT_CONFIG_PARAMETERS`, … could
 * each redirect or alter what git reports), with pagers, prompts and optional locks off and
 * messages in the C locale.
 */
export function baseGitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (!key.startsWith('GIT_')) out[key] = value;
  out.GIT_TERMINAL_PROMPT = '0';
  out.GIT_PAGER = 'cat';
  out.PAGER = 'cat';
  out.GIT_OPTIONAL_LOCKS = '0';
  out.GIT_NO_REPLACE_OBJECTS = '1';
  out.LC_ALL = 'C';
  out.LANGUAGE = 'C';
  return out;
}

/** What to do about the current directory outside any work tree: every command that looks for one takes `--repo`. */
const NAME_A_WORK_TREE = 'run cordon inside one, or name one with --repo DIR';

/** Options of {@link discoverRepo}. */
export interface DiscoverOptions {
  readonly gitBinary?: string;
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The flag the user named `path` with (`--repo`): a refusal then names the flag and the path as
   * typed (JSON-quoted, as every refused flag value is) and does not suggest the flag the user
   * already gave. Without it `path` is where cordon runs and the refusal says to name one.
   */
  readonly flag?: string;
}

/**
 * Finds the repository containing `path` (any directory inside the work tree; the BEKO2210/SkillQuarry cordon
 * `--repo`). Uses the caller's global and system git config, as plain git would, but no `GIT_*`
 * environment. Throws `CORDON_REPO_ERROR` (exit 2) when `path` is not inside a work tree: `<dir>
 * is not inside a git work tree` (git's message appended, then how to name one: `--repo`), or
 * with `options.flag` `--repo "<path>" is not inside a git work tree` (git's message appended);
 * and `CORDON_BAD_INPUT` when `path` does not exist.
 */
export async function discoverRepo(path: string, options: DiscoverOptions = {}): Promise<RepoLocation> {
  return (await locate(path, options, false)).loc;
}

/**
 * {@link discoverRepo} and HEAD's commit id from the same `git rev-parse` (one process fewer
 * for `check`). `head` is `undefined` when HEAD names no commit (unborn, or not a commit):
 * {@link resolveCommit} then says why. Throws as {@link discoverRepo}.
 */
export async function discoverRepoAndHead(path: string, options: DiscoverOptions = {}): Promise<{ loc: RepoLocation; head: string | undefined }> {
  return locate(path, options, true);
}

/**
 * {@link discoverRepo} of `repo` as the user gave it with `--repo`, else of the current
 * directory: the one way an envelope command finds its repository, so that every one of them
 * words a refusal alike.
 */
export async function discoverRepoOf(repo: string | undefined): Promise<RepoLocation> {
  return discoverRepo(repo ?? process.cwd(), repoOptions(repo));
}

/** The {@link DiscoverOptions} for `--repo`'s value `repo`, or for the current directory when it is undefined. */
export function repoOptions(repo: string | undefined): DiscoverOptions {
  return repo === undefined ? {} : { flag: '--repo' };
}

async function locate(path: string, options: DiscoverOptions, withHead: boolean): Promise<{ loc: RepoLocation; head: string | undefined }> {
  const dir = resolve(requireDirectory('--repo', path));
  // The path as the user named it, or the directory cordon runs in, and what to do about it.
  const named = options.flag === undefined ? dir : `${options.flag} ${JSON.stringify(path)}`;
  const remedy = options.flag === undefined ? `; ${NAME_A_WORK_TREE}` : '';
  const gitBinary = options.gitBinary ?? 'git';
  const inv: GitInvocation = { cwd: dir, env: baseGitEnv(options.env), gitBinary };
  const wanted = ['--show-toplevel', '--absolute-git-dir', '--git-common-dir', '--git-path', 'objects', '--git-path', 'index', '--git-path', 'info/exclude', '--git-path', 'info/attributes', '--git-path', 'cordon.lock'];
  let stdout: Buffer;
  let exitCode = 0;
  try {
    // `--verify -q` prints HEAD's id after the paths, or nothing (exit 1) when HEAD names no commit.
    ({ stdout, exitCode } = await git(inv, ['rev-parse', ...wanted, ...(withHead ? ['--verify', '-q', 'HEAD^{commit}'] : [])], { okExitCodes: withHead ? [0, 1] : [0] }));
  } catch (error) {
    const said = (error as Error).message;
    // git's own words for "no repository here" and "inside .git, not a work tree".
    if (/not a git repository|must be run in a work tree/i.test(said)) {
      throw new CordonError(ERROR_CODES.REPO_ERROR, `${named} is not inside a git work tree (git: ${said.replace(/^git rev-parse exited \d+: /, '').split('\n')[0]!.trim()})${remedy}`, { cause: error });
    }
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot locate the repository of ${named}: ${said}`, { cause: error });
  }
  const lines = stdout.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const head = withHead && exitCode === 0 ? lines.pop() : undefined;
  if (head !== undefined && !OBJECT_ID.test(head)) throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot locate the repository of ${named}: unexpected git rev-parse output`);
  if (lines.length !== 8) throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot locate the repository of ${named}: unexpected git rev-parse output (a path with a newline is not supported here)`);
  const [top, gitDir, common, objects, index, exclude, attributes, lock] = lines as [string, string, string, string, string, string, string, string];
  if (!top) throw new CordonError(ERROR_CODES.REPO_ERROR, `${named} is not inside a git work tree${remedy}`);
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(dir, p));
  const real = (p: string) => {
    try {
      return realPath(p);
    } catch {
      return p;
    }
  };
  const loc: RepoLocation = {
    root: real(top),
    gitDir: real(gitDir),
    commonDir: real(abs(common)),
    objectsDir: real(abs(objects)),
    indexFile: abs(index),
    excludeFile: abs(exclude),
    attributesFile: abs(attributes),
    lockFile: abs(lock),
    gitBinary,
  };
  return { loc, head };
}

/**
 * `git rev-parse --verify <rev>^{commit}` in the real repository: the full commit id. Throws
 * `CORDON_REPO_ERROR` (exit 2) `cannot resolve <what>: …`: a name that is no commit says so (no
 * commit, branch or tag of that name, or the type of object it names) with git's words after it;
 * when `rev` is `HEAD` and HEAD is unborn (a repository with no commit yet), the message says so
 * and to commit first instead of git's `Needed a single revision`; other git failures in git's words.
 */
export async function resolveCommit(loc: RepoLocation, rev: string, what = rev): Promise<string> {
  const inv: GitInvocation = { cwd: loc.root, env: baseGitEnv(), gitBinary: loc.gitBinary };
  try {
    const { stdout } = await git(inv, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`]);
    return stdout.toString('utf8').trim();
  } catch (error) {
    const branch = rev === 'HEAD' ? await unbornBranch(inv) : undefined;
    if (branch !== undefined) {
      throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot resolve ${what}: the repository in ${loc.root} has no commit yet (HEAD names the branch ${JSON.stringify(branch)}, which has none); make a first commit (\`git add\` and \`git commit\`), then run the command again`, {
        cause: error,
        details: { unborn: branch },
      });
    }
    const said = (error as Error).message.replace(/^git rev-parse exited \d+: /, '');
    // git's `Needed a single revision` (with, for a tree or blob, the object's type first) means
    // the name is no commit here: said in those words, git's own kept behind them.
    if (/Needed a single revision/.test(said)) {
      const type = /dereferences to (\w+) type/.exec(said)?.[1];
      const why = type ? `it names a ${type}, not a commit` : 'no commit, branch or tag of that name';
      throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot resolve ${what}: ${why} in the repository at ${loc.root} (git: ${said.replace(/\s+/g, ' ').trim()})`, { cause: error });
    }
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot resolve ${what}: ${said}`, { cause: error });
  }
}

/**
 * The best common ancestor of the commits `a` and `b` (`git merge-base a b`, full id), or
 * undefined when this repository holds none (unrelated histories, or a shallow clone whose
 * history stops before they meet). Throws `CORDON_REPO_ERROR` when git fails otherwise.
 */
export async function mergeBase(loc: RepoLocation, a: string, b: string): Promise<string | undefined> {
  const inv: GitInvocation = { cwd: loc.root, env: baseGitEnv(), gitBinary: loc.gitBinary };
  try {
    const { stdout, exitCode } = await git(inv, ['merge-base', '--end-of-options', a, b], { okExitCodes: [0, 1] });
    const id = stdout.toString('utf8').trim();
    return exitCode === 0 && id !== '' ? id : undefined;
  } catch (error) {
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot find where ${a.slice(0, 12)} and ${b.slice(0, 12)} meet: ${(error as Error).message.replace(/^git merge-base exited \d+: /, '')}`, { cause: error });
  }
}

/** The branch HEAD names (`main`) when that branch does not exist yet (no commit made on it), else undefined. Error path only. */
async function unbornBranch(inv: GitInvocation): Promise<string | undefined> {
  try {
    const { stdout, exitCode } = await git(inv, ['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [0, 1] });
    const ref = stdout.toString('utf8').trim();
    if (exitCode !== 0 || !ref.startsWith('refs/heads/')) return undefined;
    // Exit 1 with --verify -q: no such ref (anything else, a damaged ref, is left to the first error).
    const found = await git(inv, ['rev-parse', '-q', '--verify', '--end-of-options', ref], { okExitCodes: [0, 1] });
    return found.exitCode === 1 ? ref.slice('refs/heads/'.length) : undefined;
  } catch {
    return undefined;
  }
}
