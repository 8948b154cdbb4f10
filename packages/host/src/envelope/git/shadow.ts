import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { privateTempDir } from '../../io/private-temp.js';
import { pathBytes, pathText } from '../path-text.js';
import type { RepoLocation } from './repo.js';
import { baseGitEnv } from './repo.js';
import { git, type GitInvocation } from './run-git.js';

/**
 * The git configuration and rule files as they were when the envelope was armed. Every audit
 * git command reads these instead of the live ones, so nothing the agent changes afterwards
 * (`.git/config`, `~/.gitconfig`, `core.excludesFile`, `core.attributesFile`, `info/exclude`,
 * `info/attributes`) changes what the audit sees (issue 2 "Integrity"; research §18.1 items
 * 2–4, §20 "Harden at arm time"). File contents are stored in their lossless text form.
 */
export interface GitRules {
  /** Arm-time values of the few settings that change how git reads a work tree. */
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
 * Settings carried from the user's configuration. Everything else is cordon's: in particular
 * no filter, diff or textconv driver, no fsmonitor, no hooks path, no `core.worktree`, no
 * includes, so running the audit never executes anything a repository config names.
 */
export const CARRIED_SETTINGS = ['core.filemode', 'core.symlinks', 'core.ignorecase', 'core.precomposeunicode', 'core.autocrlf', 'core.eol', 'extensions.objectformat'] as const;

/** Reads {@link GitRules} from the live repository and the user's config (at arm time). */
export async function readGitRules(loc: RepoLocation, env: NodeJS.ProcessEnv = process.env): Promise<GitRules> {
  const inv: GitInvocation = { cwd: loc.root, env: baseGitEnv(env), gitBinary: loc.gitBinary };
  const settings: Record<string, string> = {};
  const pattern = `^(${CARRIED_SETTINGS.map((k) => k.replace('.', '\\.')).join('|')})$`;
  const { stdout } = await git(inv, ['config', '-z', '--get-regexp', pattern], { okExitCodes: [0, 1] });
  for (const record of stdout.toString('utf8').split('\0')) {
    if (!record) continue;
    const nl = record.indexOf('\n');
    const key = (nl === -1 ? record : record.slice(0, nl)).toLowerCase();
    const value = nl === -1 ? 'true' : record.slice(nl + 1);
    if (/^[A-Za-z0-9_-]{1,32}$/.test(value)) settings[key] = value;
  }
  const configured = async (key: string) => {
    const { stdout: out, exitCode } = await git(inv, ['config', '--type=path', '--get', key], { okExitCodes: [0, 1] });
    return exitCode === 0 ? out.toString('utf8').replace(/\n$/, '') : undefined;
  };
  const xdg = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  const excludes = (await configured('core.excludesFile')) ?? join(xdg, 'git', 'ignore');
  const attributes = (await configured('core.attributesFile')) ?? join(xdg, 'git', 'attributes');
  return {
    settings,
    info_exclude: readText(loc.excludeFile),
    info_attributes: readText(loc.attributesFile),
    excludes_file: readText(excludes),
    attributes_file: readText(attributes),
  };
}

/** A private git directory wired to the real objects and the real index (hard-linked or copied). */
export interface ShadowGit {
  readonly dir: string;
  /** Runs git on the real work tree with the arm-time rules. */
  readonly inv: GitInvocation;
  /** The same rules over another work tree (the arm-time `.gitignore` files for `check-ignore`). */
  over(workTree: string): GitInvocation;
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
  const dir = privateTempDir('cordon-git-');
  try {
    mkdirSync(join(dir, 'refs'), { mode: 0o700 });
    mkdirSync(join(dir, 'info'), { mode: 0o700 });
    writeFileSync(join(dir, 'HEAD'), `${head}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'info', 'exclude'), textBytes(rules.info_exclude), { mode: 0o600 });
    writeFileSync(join(dir, 'info', 'attributes'), textBytes(rules.info_attributes), { mode: 0o600 });
    writeFileSync(join(dir, 'excludes'), textBytes(rules.excludes_file), { mode: 0o600 });
    writeFileSync(join(dir, 'attributes'), textBytes(rules.attributes_file), { mode: 0o600 });
    writeFileSync(join(dir, 'config'), shadowConfig(dir, rules.settings), { mode: 0o600 });
    if (existsSync(loc.indexFile)) shareIndex(loc.indexFile, join(dir, 'index'));
    // A split index names its shared part relative to the git dir.
    for (const name of safeReaddir(loc.gitDir)) if (name.startsWith('sharedindex.')) symlinkSync(join(loc.gitDir, name), join(dir, name));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot prepare cordon's private git directory: ${(error as Error).message}`, { cause: error });
  }
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
  return {
    dir,
    inv: { cwd: loc.root, env: envFor(loc.root), gitBinary: loc.gitBinary },
    over: (workTree) => ({ cwd: workTree, env: envFor(workTree), gitBinary: loc.gitBinary }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
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
  const quote = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
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
    `\tignorecase = ${get('core.ignorecase', 'false')}`,
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
