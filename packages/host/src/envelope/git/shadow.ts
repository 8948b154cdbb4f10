import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { readRegularFile, removeTree } from '../../io/index.js';
import { privateTempDir } from '../../io/private-temp.js';
import { onInterrupt } from '../../process/interrupt.js';
import { pathBytes, pathText } from '../path-text.js';
import type { RepoLocation } from './repo.js';
import { baseGitEnv } from './repo.js';
import { carriedFilters, configPairs, configQuote, FILTER_ATTRIBUTES_KEY, filterSettings, mentionsFilter, type CarriedFilters } from './filters.js';
import { git, gitRecords, type GitInvocation } from './run-git.js';

/**
 * The git configuration and rule files as they were when the envelope was armed. Every audit
 * git command reads these instead of the live ones, so nothing the agent changes afterwards
 * (`.git/config`, `~/.gitconfig`, `core.excludesFile`, `core.attributesFile`, `info/exclude`,
 * `info/attributes`) changes what the audit sees (docs/envelopes.md: harden
 * at arm time). File contents are stored in their lossless text form.
 */
export interface GitRules {
  /**
   * Arm-time values of the few settings that change how git reads a work tree
   * ({@link CARRIED_SETTINGS}), the filter drivers and their pins (git/filters.ts), and cordon's
   * own `cordon.*` records: {@link BASELINE_TREE_KEY} and `cordon.attributes.filter`.
   */
  readonly settings: Readonly<Record<string, string>>;
  /** `info/exclude` content after `/.cordon/` was registered. */
  readonly info_exclude: string | null;
  readonly info_attributes: string | null;
  /** Content of the effective `core.excludesFile` (default `$XDG_CONFIG_HOME/git/ignore`). */
  readonly excludes_file: string | null;
  /** Content of the effective `core.attributesFile` (default `$XDG_CONFIG_HOME/git/attributes`). */
  readonly attributes_file: string | null;
}

/**
 * Settings carried from the user's configuration, and what each may do to a listing (no
 * carried setting may let a path the file system holds go unseen):
 *
 * - `core.filemode`, `core.symlinks`: how a file's mode and a symlink are read; a path is still
 *   listed and its content compared.
 * - `core.autocrlf`, `core.eol`: line-ending conversion, as git commits the file; never a name.
 * - `core.ignorecase`: folds names against the index, so on a case-sensitive file system
 *   `SRC/A.TXT` passes for the tracked `src/a.txt` and is never listed. Carried only into ignore
 *   matching ({@link ShadowGit.ignoring}, where an ignored path is still audited as an ignored
 *   entry); every listing runs with `core.ignorecase=false`, so each on-disk name is compared as
 *   it is spelled (on a case-insensitive disk a name re-cased after arming is then reported).
 * - `core.precomposeunicode`: only git on macOS reads it (it then lists NFD names as NFC, which
 *   the file system treats as one name); git on Linux ignores it.
 * - `extensions.objectformat`: SHA-1 or SHA-256 object names.
 * - `filter.<driver>.*`: clean/smudge drivers, pinned at arm (git/filters.ts).
 *
 * Everything else is cordon's own: no diff or textconv driver, no fsmonitor, no untracked cache,
 * no sparse checkout, no hooks path, no `core.worktree`, no includes, no `status.*`, quoting off,
 * global and system config off — and only arm-time filter drivers whose programs are unchanged,
 * so the audit never runs code written after arming.
 */
export const CARRIED_SETTINGS = ['core.filemode', 'core.symlinks', 'core.ignorecase', 'core.precomposeunicode', 'core.autocrlf', 'core.eol', 'extensions.objectformat'] as const;

/**
 * `settings` key under which arming records the baseline commit's tree id: a check whose index
 * amounts to that very tree (its cache-tree root) has nothing staged, and skips the index diff.
 */
export const BASELINE_TREE_KEY = 'cordon.baseline.tree';

/**
 * Reads {@link GitRules} from the live repository and the user's config (at arm time); with
 * `baseline` (a commit id) also that commit's tree id ({@link BASELINE_TREE_KEY}).
 */
export async function readGitRules(loc: RepoLocation, env: NodeJS.ProcessEnv = process.env, baseline?: string): Promise<GitRules> {
  const inv: GitInvocation = { cwd: loc.root, env: baseGitEnv(env), gitBinary: loc.gitBinary };
  const settings: Record<string, string> = {};
  const pattern = `^(${CARRIED_SETTINGS.map((k) => k.replace('.', '\\.')).join('|')})$`;
  const { stdout } = await git(inv, ['config', '-z', '--get-regexp', pattern], { okExitCodes: [0, 1] });
  for (const [key, value] of configPairs(stdout)) if (/^[A-Za-z0-9_-]{1,32}$/.test(value)) settings[key.toLowerCase()] = value;
  const filters = await git(inv, ['config', '-z', '--get-regexp', '^filter\\.'], { okExitCodes: [0, 1] });
  Object.assign(settings, filterSettings(configPairs(filters.stdout), loc.root, env));
  if (baseline) settings[BASELINE_TREE_KEY] = (await git(inv, ['rev-parse', '--verify', '-q', `${baseline}^{tree}`])).stdout.toString('latin1').trim();
  const configured = async (key: string) => {
    const { stdout: out, exitCode } = await git(inv, ['config', '--type=path', '--get', key], { okExitCodes: [0, 1] });
    return exitCode === 0 ? out.toString('utf8').replace(/\n$/, '') : undefined;
  };
  const xdg = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  const excludes = (await configured('core.excludesFile')) ?? join(xdg, 'git', 'ignore');
  const attributes = (await configured('core.attributesFile')) ?? join(xdg, 'git', 'attributes');
  const rules: GitRules = {
    settings,
    info_exclude: readText(loc.excludeFile),
    info_attributes: readText(loc.attributesFile),
    excludes_file: readText(excludes),
    attributes_file: readText(attributes),
  };
  if (mentionsFilter(rules.info_attributes) || mentionsFilter(rules.attributes_file) || (await trackedAttributesMentionFilter(inv, loc.root))) settings[FILTER_ATTRIBUTES_KEY] = 'true';
  return rules;
}

/** A private git directory wired to the real objects and the real index (hard-linked or copied). */
export interface ShadowGit {
  readonly dir: string;
  /** Runs git on the real work tree with the arm-time rules. */
  readonly inv: GitInvocation;
  /**
   * For ignore-rule matching (`check-ignore`) only: the arm-time rules with the user's
   * `core.ignorecase`, over `workTree` (default the real one; the audit passes a scratch tree
   * holding the arm-time `.gitignore` files).
   */
  ignoring(workTree?: string): GitInvocation;
  /** The arm-time filter drivers this directory runs, and those it leaves out (git/filters.ts). */
  readonly filters: CarriedFilters;
  dispose(): void;
}

/**
 * Builds a throw-away git directory in the system temp dir: `HEAD` = `head`, a config holding
 * only cordon's settings and the carried ones, `info/exclude` and `info/attributes` and the
 * global excludes/attributes files from `rules`, `GIT_OBJECT_DIRECTORY` on the real objects, and
 * the real index linked or copied in (so git's index refresh never writes the user's index). Global and
 * system config are off, replace refs are off. Caller must `dispose()`.
 */
export function createShadowGit(loc: RepoLocation, rules: GitRules, head: string, env: NodeJS.ProcessEnv = process.env): ShadowGit {
  const filters = carriedFilters(rules.settings, loc.root, env);
  const dir = privateTempDir('cordon-git-');
  try {
    // git takes a directory with `refs/` and a HEAD for a git directory (setup.c is_git_directory).
    mkdirSync(join(dir, 'refs'), { mode: 0o700 });
    writeFileSync(join(dir, 'HEAD'), `${head}\n`, { mode: 0o600 });
    // A rule file that would be empty is not written: git reads a missing one as empty, without
    // a warning (only errors other than ENOENT are reported), and the directory is private.
    const rule = (path: string, text: string | null) => {
      if (text) writeFileSync(join(dir, path), textBytes(text), { mode: 0o600 });
    };
    if (rules.info_exclude || rules.info_attributes) mkdirSync(join(dir, 'info'), { mode: 0o700 });
    rule('info/exclude', rules.info_exclude);
    rule('info/attributes', rules.info_attributes);
    rule('excludes', rules.excludes_file);
    rule('attributes', rules.attributes_file);
    writeFileSync(join(dir, 'config'), shadowConfig(dir, rules.settings) + filters.config, { mode: 0o600 });
    if (existsSync(loc.indexFile)) shareIndex(loc.indexFile, join(dir, 'index'));
    // A split index names its shared part relative to the git dir.
    for (const name of safeReaddir(loc.gitDir)) if (name.startsWith('sharedindex.')) symlinkSync(join(loc.gitDir, name), join(dir, name));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot prepare cordon's private git directory: ${(error as Error).message}`, { cause: error });
  }
  // An interrupted check removes it too (after ending the git commands that use it).
  const releaseOnInterrupt = onInterrupt(() => removeTree(dir), 'files');
  const envFor = (workTree: string): NodeJS.ProcessEnv => ({
    ...baseGitEnv(env),
    GIT_DIR: dir,
    GIT_WORK_TREE: workTree,
    GIT_INDEX_FILE: join(dir, 'index'),
    GIT_OBJECT_DIRECTORY: loc.objectsDir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
  });
  // git reads `-c` style settings from GIT_CONFIG_PARAMETERS (every version cordon supports).
  const ignorecase = /^(true|yes|on|1)$/i.test(rules.settings['core.ignorecase'] ?? '') ? { GIT_CONFIG_PARAMETERS: "'core.ignorecase'='true'" } : {};
  // git's errors name `dir`; the user is told about the repository it stands in for.
  const privateNames = { dir, gitDir: loc.gitDir, indexFile: loc.indexFile };
  return {
    dir,
    inv: { cwd: loc.root, env: envFor(loc.root), gitBinary: loc.gitBinary, privateNames },
    ignoring: (workTree = loc.root) => ({ cwd: workTree, env: { ...envFor(workTree), ...ignorecase }, gitBinary: loc.gitBinary, privateNames }),
    filters,
    dispose: () => {
      releaseOnInterrupt();
      removeTree(dir);
    },
  };
}

/**
 * Gives the private directory the real index as it is now: a hard link when both are on one
 * file system, else a copy. A link is as safe as a copy: git never writes an index file in
 * place, it writes `index.lock` beside it and renames that over it (lockfile.h), so a refresh
 * through the private directory replaces only the private name, and a later write of the real
 * index leaves the linked snapshot as it was. The link saves copying (and later freeing) the
 * whole file: about 9 MB for 100,000 entries.
 */
function shareIndex(indexFile: string, target: string): void {
  try {
    linkSync(indexFile, target);
  } catch {
    copyFileSync(indexFile, target);
  }
}

function shadowConfig(dir: string, settings: Readonly<Record<string, string>>): string {
  const quote = configQuote;
  const get = (key: string, fallback: string) => {
    const v = settings[key];
    return v !== undefined && /^[A-Za-z0-9_-]{1,32}$/.test(v) ? v : fallback;
  };
  const objectFormat = settings['extensions.objectformat'];
  const lines = [
    '[core]',
    `\trepositoryformatversion = ${objectFormat ? 1 : 0}`,
    '\tbare = false',
    `\tfilemode = ${get('core.filemode', 'true')}`,
    `\tsymlinks = ${get('core.symlinks', 'true')}`,
    // Listings compare names exactly (see CARRIED_SETTINGS); ignore matching gets the user's value.
    '\tignorecase = false',
    `\tprecomposeunicode = ${get('core.precomposeunicode', 'false')}`,
    `\tautocrlf = ${get('core.autocrlf', 'false')}`,
    ...(settings['core.eol'] ? [`\teol = ${get('core.eol', 'native')}`] : []),
    `\texcludesfile = ${quote(join(dir, 'excludes'))}`,
    `\tattributesfile = ${quote(join(dir, 'attributes'))}`,
    `\thookspath = ${quote(join(dir, 'no-hooks'))}`,
    '\tfsmonitor = false',
    '\tuntrackedcache = false',
    '\ttrustctime = true',
    '\tcheckstat = default',
    '\tsplitindex = false',
    '\tquotepath = false',
    '\tsafecrlf = false',
    '[diff]',
    '\tautorefreshindex = true',
    '\trenames = false',
    '\talgorithm = myers',
    '[index]',
    '\tsparse = false',
    '[gc]',
    '\tauto = 0',
    '[maintenance]',
    '\tauto = false',
  ];
  if (objectFormat) lines.push('[extensions]', `\tobjectformat = ${get('extensions.objectformat', 'sha1')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Whether a `.gitattributes` the index tracks mentions `filter` (read from the work tree, clean at
 * arm time). Read without following links, regular files only, size bounded; one that cannot be
 * read that way counts as mentioning it (the check then asks git).
 */
async function trackedAttributesMentionFilter(inv: GitInvocation, root: string): Promise<boolean> {
  const files: string[] = [];
  await gitRecords(inv, ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--', ':(glob)**/.gitattributes'], (r) => files.push(pathText(r)));
  return files.some((file) => {
    try {
      return mentionsFilter(readRegularFile(join(root, file), { maxBytes: 16 * 1024 * 1024, links: 'never' }).toString('latin1'));
    } catch {
      return true;
    }
  });
}

function readText(path: string): string | null {
  try {
    return pathText(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function textBytes(text: string | null): Buffer {
  return text === null ? Buffer.alloc(0) : pathBytes(text);
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
