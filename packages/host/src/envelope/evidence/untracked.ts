import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { globCoversDirectory } from '../glob.js';
import { gitRecordSpans, type GitCallOptions, type GitInvocation } from '../git/run-git.js';
import type { IgnoreAnswers } from '../git/ignore-oracle.js';
import { pathText, pathTextAt } from '../path-text.js';
import type { PathRules } from '../policy/policy.js';
import { absPath } from './fs-path.js';
import { statPrint, treePrint } from './fingerprint.js';
import { systemErrorWords } from '@cordon/plugin-api';

/**
 * Untracked and ignored paths (docs/envelopes.md).
 *
 * Arming records every ignored entry git reports (`ls-files --others --ignored
 * --exclude-standard --directory`) with a stat fingerprint. Checking lists untracked paths
 * with **no** ignore rules at all (`ls-files --others --directory`), so a `.gitignore`,
 * `info/exclude` or `core.excludesFile` written after arming cannot hide anything. Each path
 * that is not an armed ignored entry is then judged by the arm-time rules only (an
 * {@link IgnoreOracle} over the arm-time `.gitignore` files): not ignored → an ordinary
 * untracked change; ignored → a new ignored entry, a violation unless `--allow-ignored`
 * covers it. Armed entries that changed or vanished are violations under the same proviso.
 */

/**
 * `path`: anything but a nested repository (measuring tells files, symlinks and others apart);
 * `unreadable_dir`: an untracked directory that could not be entered (`EACCES` …), whose
 * contents nobody can tell.
 */
export type UntrackedKind = 'path' | 'nested_repo' | 'unreadable_dir';

/** One untracked change (not ignored by the arm-time rules). Nested repositories and unreadable directories end in `/`. */
export interface UntrackedPath {
  readonly path: string;
  readonly kind: UntrackedKind;
  /** For `unreadable_dir`: what went wrong, in words (`permission denied`: the plugin API's systemErrorWords). */
  readonly error?: string;
}

/** An ignored entry that appeared, changed or vanished after arming and no `--allow-ignored` glob covers. */
export interface IgnoredChange {
  /** Repo-relative text form; directories end in `/`. */
  readonly path: string;
  readonly change: 'new' | 'changed' | 'removed';
}

/** What arming recorded about ignored paths (stored in `.cordon/snapshot.json`). */
export interface IgnoredSnapshot {
  /** Ignored entry (directories end in `/`) → fingerprint; entries `--allow-ignored` covers are left out. */
  readonly entries: Readonly<Record<string, string>>;
  /** Every `.gitignore` in force at arm time, path → content (lossless text): the rules checks judge by. */
  readonly gitignores: Readonly<Record<string, string>>;
  /**
   * Verifier executables `--allow-ignored` covers, path → fingerprint (evidence/verifier-tools.ts):
   * reported when they change, never a violation. Absent in envelopes armed by an older cordon.
   */
  readonly verifier_tools?: Readonly<Record<string, string>>;
}

/** The `.cordon/` directory itself is never evidence. */
export function isCordonPath(path: string): boolean {
  return path === '.cordon/' || path === '.cordon' || path.startsWith('.cordon/');
}

/** Result of exploring untracked directories. */
interface Found {
  files: UntrackedPath[];
  ignoredFiles: string[];
  ignoredDirs: string[];
}

/**
 * Walks the untracked directory `dir` (no trailing slash) and sorts what it finds with
 * `oracle`: untracked changes, ignored files, ignored directories (not entered). `known(p)`
 * marks armed entries to leave out; directories with armed entries below (`knownBelow`) are
 * entered without asking. A directory holding `.git` is a nested repository, never entered.
 */
async function explore(root: string, dir: string, oracle: IgnoreAnswers, known: (p: string) => boolean, knownBelow: (d: string) => boolean, found: Found): Promise<void> {
  let entries: Dirent<Buffer>[];
  try {
    entries = readdirSync(absPath(root, dir), { encoding: 'buffer', withFileTypes: true });
  } catch (error) {
    unreadableDir(found, dir, error);
    return;
  }
  const files: UntrackedPath[] = [];
  const dirs: string[] = [];
  for (const entry of entries) {
    const rel = `${dir}/${pathText(entry.name)}`;
    if (isCordonPath(rel) || known(rel) || known(`${rel}/`)) continue;
    // As git's own listing: a FIFO, socket or device is nothing git can add, in a new directory
    // as in one git already knows (where `ls-files --others` never names it).
    if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) continue;
    if (entry.isDirectory()) dirs.push(rel);
    else files.push({ path: rel, kind: 'path' });
  }
  const asked = [...files.map((f) => f.path), ...dirs.filter((d) => !knownBelow(d)).map((d) => `${d}/`)];
  const answers = await oracle.ignored(asked);
  const ignored = new Set(asked.filter((_, i) => answers[i]));
  for (const f of files) {
    if (ignored.has(f.path)) found.ignoredFiles.push(f.path);
    else found.files.push(f);
  }
  for (const d of dirs) {
    if (ignored.has(`${d}/`)) found.ignoredDirs.push(`${d}/`);
    else await enter(root, d, oracle, known, knownBelow, found);
  }
}

/** An untracked directory that is not ignored: a nested repository, or explored (see {@link explore}). */
async function enter(root: string, dir: string, oracle: IgnoreAnswers, known: (p: string) => boolean, knownBelow: (d: string) => boolean, found: Found): Promise<void> {
  let nested: boolean;
  try {
    nested = !knownBelow(dir) && lstatSync(absPath(root, `${dir}/.git`), { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    unreadableDir(found, dir, error);
    return;
  }
  if (nested) found.files.push({ path: `${dir}/`, kind: 'nested_repo' });
  else await explore(root, dir, oracle, known, knownBelow, found);
}

/**
 * Records that the untracked directory `dir` could not be entered (`EACCES`, `ENOTDIR`, gone
 * meanwhile …): measuring makes it a violation, so what it may hold is never accepted unseen.
 * Rethrows anything that is not a system error.
 */
function unreadableDir(found: Found, dir: string, error: unknown): void {
  if (typeof (error as NodeJS.ErrnoException)?.code !== 'string') throw error;
  // In the system's words without the call and path: the path may be an internal probe (`<dir>/.git`).
  found.files.push({ path: `${dir}/`, kind: 'unreadable_dir', error: systemErrorWords(error) });
}

/** `--allow-ignored` coverage of one ignored entry (directories: every path below it). */
function covered(rules: PathRules, allowIgnored: readonly string[], entry: string): boolean {
  if (!entry.endsWith('/')) return rules.ignoredAllowed(entry);
  const dir = entry.slice(0, -1);
  return allowIgnored.some((g) => globCoversDirectory(g, dir));
}

/** Fingerprint of an ignored entry now (`null`: gone), leaving out what `--allow-ignored` covers. */
export function printEntry(root: string, entry: string, rules: PathRules, allowIgnored: readonly string[]): string | null {
  if (!entry.endsWith('/')) return statPrint(absPath(root, entry));
  const skip = (rel: string, isDir: boolean) => (isDir ? allowIgnored.some((g) => globCoversDirectory(g, rel)) : rules.ignoredAllowed(rel));
  return treePrint(absPath(root, entry), entry.slice(0, -1), skip);
}

/** Inputs of {@link snapshotIgnored}. */
export interface SnapshotInputs {
  readonly root: string;
  /** Shadow git over the live work tree (arm-time rules are the live ones). */
  readonly inv: GitInvocation;
  /** Oracle over the live work tree. */
  readonly oracle: IgnoreAnswers;
  readonly rules: PathRules;
  readonly allowIgnored: readonly string[];
  /** Tracked `.gitignore` paths from the index. */
  readonly trackedGitignores: readonly string[];
}

/**
 * Records the ignored entries at arm time (see the module comment). Untracked paths are listed
 * exactly as check lists them ({@link listUntracked}: no ignore rules, names compared with the
 * index as spelled) and sorted by the same oracle, so a check right after arming sees what
 * arming saw. Returns the snapshot and every untracked path that is *not* ignored (the caller
 * refuses to arm when there is one).
 */
export async function snapshotIgnored(input: SnapshotInputs): Promise<{ snapshot: IgnoredSnapshot; unignored: UntrackedPath[] }> {
  const listed = (await listUntracked(input.inv)).filter((p) => !isCordonPath(p));
  const found = await classify(input.root, listed, input.oracle, () => false, () => false);
  const entries: Record<string, string> = {};
  for (const entry of [...found.ignoredFiles, ...found.ignoredDirs].sort()) {
    if (covered(input.rules, input.allowIgnored, entry)) continue;
    const print = printEntry(input.root, entry, input.rules, input.allowIgnored);
    if (print !== null) entries[entry] = print;
  }
  const gitignores: Record<string, string> = {};
  const ruleFiles = [...input.trackedGitignores, ...found.ignoredFiles.filter((p) => p === '.gitignore' || p.endsWith('/.gitignore'))];
  for (const path of ruleFiles) {
    try {
      gitignores[path] = pathText(readFileSync(absPath(input.root, path)));
    } catch {
      // A tracked .gitignore missing from disk holds no rules for git either.
    }
  }
  return { snapshot: { entries, gitignores }, unignored: found.files };
}

/**
 * Sorts listed untracked paths (files, and directories ending in `/`) with `oracle` into
 * untracked changes, ignored files and ignored directories, entering directories that are
 * not ignored (see {@link explore}). `known`/`knownBelow` as there.
 */
async function classify(root: string, candidates: readonly string[], oracle: IgnoreAnswers, known: (p: string) => boolean, knownBelow: (d: string) => boolean): Promise<Found> {
  const found: Found = { files: [], ignoredFiles: [], ignoredDirs: [] };
  if (candidates.length === 0) return found;
  const files = candidates.filter((p) => !p.endsWith('/'));
  const dirs = candidates.filter((p) => p.endsWith('/'));
  const askedDirs = dirs.filter((d) => !knownBelow(d.slice(0, -1)));
  const answers = await oracle.ignored([...files, ...askedDirs]);
  const isIgnored = new Set([...files, ...askedDirs].filter((_, i) => answers[i]));
  for (const f of files) {
    if (isIgnored.has(f)) found.ignoredFiles.push(f);
    else found.files.push({ path: f, kind: 'path' });
  }
  for (const d of dirs) {
    const dir = d.slice(0, -1);
    if (isIgnored.has(d)) found.ignoredDirs.push(d);
    else await enter(root, dir, oracle, known, knownBelow, found);
  }
  return found;
}

/**
 * Every untracked path with **no** ignore rules (`git ls-files -z --others --directory`, text
 * form; wholly untracked directories once, ending in `/`). The command starts before this returns.
 */
export async function listUntracked(inv: GitInvocation, options?: GitCallOptions): Promise<string[]> {
  const listed: string[] = [];
  await gitRecordSpans(inv, ['ls-files', '-z', '--others', '--directory'], (data, start, end) => listed.push(pathTextAt(data, start, end)), options);
  return listed;
}

/** Inputs of {@link collectUntracked}. */
export interface CollectInputs {
  readonly root: string;
  /** {@link listUntracked} of the live work tree through the shadow git. */
  readonly listed: Promise<string[]>;
  /** Oracle applying the arm-time rules; created on first use (it needs a scratch tree). */
  readonly oracle: () => Promise<IgnoreAnswers>;
  readonly snapshot: IgnoredSnapshot;
  readonly rules: PathRules;
  readonly allowIgnored: readonly string[];
}

/**
 * Lists untracked changes and ignored-entry changes at check time (see the module comment).
 * Both lists are sorted by path bytes' text form order of discovery; callers sort.
 */
export async function collectUntracked(input: CollectInputs): Promise<{ untracked: UntrackedPath[]; ignored: IgnoredChange[] }> {
  const { root, snapshot, rules, allowIgnored } = input;
  const ignored: IgnoredChange[] = [];
  for (const [entry, print] of Object.entries(snapshot.entries)) {
    const now = printEntry(root, entry, rules, allowIgnored);
    if (now === null) ignored.push({ path: entry, change: 'removed' });
    else if (now !== print) ignored.push({ path: entry, change: 'changed' });
  }
  const knownDirs = Object.keys(snapshot.entries).filter((p) => p.endsWith('/'));
  const ancestors = new Set<string>();
  for (const entry of Object.keys(snapshot.entries)) {
    const parts = entry.replace(/\/$/, '').split('/');
    for (let i = 1; i < parts.length; i++) ancestors.add(parts.slice(0, i).join('/'));
  }
  const entrySet = new Set(Object.keys(snapshot.entries));
  const known = (p: string) => entrySet.has(p) || underAny(p, knownDirs);
  const knownBelow = (d: string) => ancestors.has(d);

  const listed = await input.listed;
  const candidates = listed.filter((p) => !isCordonPath(p) && !known(p));
  const untracked: UntrackedPath[] = [];
  if (candidates.length === 0) return { untracked, ignored };

  const found = await classify(root, candidates, await input.oracle(), known, knownBelow);
  untracked.push(...found.files);
  for (const f of found.ignoredFiles) if (!rules.ignoredAllowed(f)) ignored.push({ path: f, change: 'new' });
  for (const d of found.ignoredDirs) {
    if (covered(rules, allowIgnored, d)) continue;
    if (allowIgnored.length > 0 && uncoveredCount(root, d, rules, allowIgnored) === 0) continue;
    ignored.push({ path: d, change: 'new' });
  }
  return { untracked, ignored };
}

/** Files below the ignored directory `entry` that no `--allow-ignored` glob covers. */
function uncoveredCount(root: string, entry: string, rules: PathRules, allowIgnored: readonly string[]): number {
  let count = 0;
  const skip = (rel: string, isDir: boolean) => {
    if (isDir) return allowIgnored.some((g) => globCoversDirectory(g, rel));
    if (!rules.ignoredAllowed(rel)) count += 1;
    return true;
  };
  treePrint(absPath(root, entry), entry.slice(0, -1), skip);
  return count;
}

function underAny(path: string, dirs: readonly string[]): boolean {
  for (const d of dirs) if (path.startsWith(d) && path !== d) return true;
  return false;
}

/** Value of {@link IgnoredOverlay} for an entry the verifiers removed. */
export const REMOVED_ENTRY = 'removed';

/**
 * Ignored entries as the verifiers of a check left them: entry (directories end
 * in `/`) → fingerprint, or {@link REMOVED_ENTRY}. Laid over the arm-time entries, it is what the
 * next check compares with, so verifier output is not blamed on the agent.
 */
export type IgnoredOverlay = Readonly<Record<string, string>>;

/** The arm-time snapshot with `overlay` laid over its entries. */
export function overlaySnapshot(snapshot: IgnoredSnapshot, overlay: IgnoredOverlay | undefined): IgnoredSnapshot {
  if (!overlay || Object.keys(overlay).length === 0) return snapshot;
  const entries: Record<string, string> = { ...snapshot.entries };
  for (const [entry, print] of Object.entries(overlay)) {
    if (print === REMOVED_ENTRY) delete entries[entry];
    else entries[entry] = print;
  }
  return { ...snapshot, entries };
}

/**
 * The `--allow-ignored` glob that covers `paths` (repo-relative; directories end in `/`): the one
 * path itself when it is a single file, else their deepest common directory followed by `/**`
 * (`**` when they share none).
 */
export function coveringGlob(paths: readonly string[]): string {
  if (paths.length === 1 && !paths[0]!.endsWith('/')) return paths[0]!;
  const split = paths.map((p) => p.replace(/\/$/, '').split('/'));
  const dirs = split.map((parts, i) => (paths[i]!.endsWith('/') ? parts : parts.slice(0, -1)));
  const common: string[] = [];
  for (let i = 0; dirs.every((d) => i < d.length && d[i] === dirs[0]![i]); i++) common.push(dirs[0]![i]!);
  return common.length === 0 ? '**' : `${common.join('/')}/**`;
}
