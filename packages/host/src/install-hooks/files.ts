import { accessSync, chownSync, constants, existsSync, lstatSync, mkdirSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { writeFileAtomic, writeTarget } from '../io/atomic-write.js';
import { linkChain } from '../io/link-chain.js';
import { fileKind, readRegularFileIfExists, UnsafeReadError } from '../io/safe-read.js';
import { pathCandidates } from '../process/path-search.js';
import { firstNonUtf8 } from '../util/utf8.js';
import { unparseable } from './formats/unparseable.js';

/**
 * Largest agent config install-hooks reads (bytes): configs are a few KiB; a bigger one is not a
 * config. 1 MiB, since each edit parses the file again: at the former 16 MiB a 6 MB config.yaml
 * held install (and doctor, which plans every agent) for more than five minutes.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads a config file as UTF-8; `undefined` when it does not exist; a file holding a byte that is
 * not UTF-8 is refused (`CORDON_CONFIG_UNPARSEABLE`, naming its line and column), since writing
 * back its decoded text would change those bytes. A symbolic link is followed
 * (a dotfiles link is the normal case), but only a regular file of at most
 * {@link MAX_CONFIG_BYTES} is read, without blocking (a project can ship a FIFO or a link to
 * `/dev/zero` under `.claude/settings.json`): anything else is refused with `CORDON_CONFIG_EDIT`
 * naming the path, and nothing is written; so is a link that leads nowhere (dangling: naming the
 * link and its target) or back to itself (a loop), a missing file whose directory is such a
 * dangling link, a path through something that is not a directory (`~/.gemini` a file, or a link
 * to `/dev/null`: naming it), and a file cordon may not read (permission denied).
 */
export function readText(path: string): string | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFileIfExists(path, { maxBytes: MAX_CONFIG_BYTES, links: 'always' });
  } catch (error) {
    // `problem` without install-hooks' refusal: doctor reads through here too (formats/unparseable.ts configProblem).
    if (error instanceof UnsafeReadError) throw new CordonError(ERROR_CODES.CONFIG_EDIT, `${error.message}; refusing to edit it, nothing was written`, { details: { path, reason: error.reason, problem: error.message } });
    throw unreadable(path, error);
  }
  if (bytes === undefined) {
    refuseDanglingLink(path);
    refuseDanglingDirectory(path);
    return undefined;
  }
  // Decoded, a byte that is not UTF-8 becomes U+FFFD, and writing the file back would replace
  // what the user had (and an uninstall could not give the bytes back): refused instead.
  const bad = firstNonUtf8(bytes);
  if (bad >= 0) {
    const before = bytes.subarray(0, bad).toString('utf8').split('\n');
    throw unparseable(path, 'UTF-8', `byte 0x${bytes[bad]!.toString(16).padStart(2, '0')} at line ${before.length}, column ${before[before.length - 1]!.length + 1}; the agent reads it as UTF-8 text: save it as such`);
  }
  return bytes.toString('utf8');
}

/**
 * Refuses a config `path` that is a dangling symbolic link (`CORDON_CONFIG_EDIT`, naming the
 * link and where it leads): writing through it would create the target, and every missing
 * directory above it, wherever the link points (a project's `.claude/settings.json ->
 * /somewhere/else`), and uninstall could remove neither. A path that is no link passes.
 */
function refuseDanglingLink(path: string): void {
  const chain = linkChain(path);
  if (chain.hops.length < 2 || chain.end !== 'missing') return;
  const target = chain.hops[chain.hops.length - 1]!;
  const via = chain.hops.length > 2 ? ` (through ${chain.hops.slice(1, -1).join(' -> ')})` : '';
  const problem = `${path}: is a symbolic link to ${target}${via}, which does not exist`;
  throw new CordonError(ERROR_CODES.CONFIG_EDIT, `${problem}; cordon does not create a file where a dangling link points: create ${target} or remove the link, then run again; nothing was written`, {
    details: { path, target, reason: 'dangling-symlink', problem },
  });
}

/**
 * Refuses a missing config `path` whose directory, or a directory above it, is a dangling
 * symbolic link (`~/.codex -> ~/dotfiles/codex` before the dotfiles are there):
 * `CORDON_CONFIG_EDIT` naming the link and its target, as {@link refuseDanglingLink} does for the
 * file itself. Writing would fail on creating the directory (`EEXIST`) or create it wherever
 * the link points, and the dry run and `--check` would not have said why.
 */
function refuseDanglingDirectory(path: string): void {
  for (let dir = dirname(path); dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(dir)) return;
    const chain = linkChain(dir);
    if (chain.hops.length < 2 || chain.end !== 'missing') continue;
    const target = chain.hops[chain.hops.length - 1]!;
    const problem = `${path}: its directory ${dir} is a symbolic link to ${target}, which does not exist`;
    throw new CordonError(ERROR_CODES.CONFIG_EDIT, `${problem}; cordon does not create a directory where a dangling link points: create ${target} or remove the link, then run again; nothing was written`, {
      details: { path, target, reason: 'dangling-symlink', problem },
    });
  }
}

/**
 * A config `path` that could not be opened for a reason other than those {@link readText}
 * names itself, as `CORDON_CONFIG_EDIT` naming the file: a directory on its path that is no
 * directory (`ENOTDIR`: `~/.gemini` a regular file, or a link to `/dev/null`; that one is named,
 * with what it is), permission denied, or any other errno (its code). Not the plugin's failure,
 * which is what an errno error from an installer would otherwise be reported as.
 */
function unreadable(path: string, error: unknown): CordonError {
  const code = (error as NodeJS.ErrnoException).code;
  let problem: string;
  if (code === 'ENOTDIR') {
    const dir = notADirectoryAbove(path);
    problem = dir ? `${path}: ${dir.dir} on its path is ${dir.kind}, not a directory` : `${path}: a part of its path is not a directory`;
  } else if (code === 'EACCES' || code === 'EPERM') problem = `${path}: cannot be read (permission denied)`;
  else problem = `${path}: cannot be read (${code ?? (error as Error).message})`;
  const fix = code === 'ENOTDIR' ? 'move it away or make it a directory, then run again' : 'make it readable, then run again';
  return new CordonError(ERROR_CODES.CONFIG_EDIT, `${problem}; refusing to edit it: ${fix}; nothing was written`, { cause: error, details: { path, reason: code === 'ENOTDIR' ? 'not-a-directory' : 'unreadable', problem } });
}

/** The nearest directory above `path` that exists but is no directory, and what it is (`a regular file`, `a symbolic link to /dev/null, a character device`). */
function notADirectoryAbove(path: string): { dir: string; kind: string } | undefined {
  for (let dir = dirname(path); dirname(dir) !== dir; dir = dirname(dir)) {
    let stat;
    try {
      stat = statSync(dir);
    } catch {
      continue; // ENOTDIR or ENOENT: the culprit is higher up
    }
    if (stat.isDirectory()) return undefined;
    const chain = linkChain(dir);
    const via = chain.hops.length > 1 ? `a symbolic link to ${chain.hops[chain.hops.length - 1]}, ` : '';
    return { dir, kind: `${via}${fileKind(stat)}` };
  }
  return undefined;
}

/**
 * Refuses a change to a config `path` that exists but is write-protected (`CORDON_CONFIG_EDIT`,
 * naming it, its mode and, through a link, the file the link leads to): no write permission bit
 * at all (`chmod a-w`, as a user protects a file from the agent rewriting it; what root could
 * still replace), or none for this user (another user's file, a read-only file system such as
 * the Nix store a home-manager link points into). The atomic write replaces the file by a rename,
 * which its own mode does not stop, so without this a file the user made read-only would be
 * rewritten. A missing `path` (one install creates) passes.
 */
export function refuseWriteProtected(path: string): void {
  let target: string;
  let mode: number;
  try {
    target = writeTarget(path);
    mode = statSync(target).mode & 0o7777;
  } catch {
    return; // Missing (created by install) or unreadable: reading it has already said why.
  }
  let writable = (mode & 0o222) !== 0;
  if (writable) {
    try {
      accessSync(target, constants.W_OK);
    } catch {
      writable = false;
    }
  }
  if (writable) return;
  const octal = `0${mode.toString(8).padStart(3, '0')}`;
  const via = target === resolve(path) ? '' : ` (through the link to ${target})`;
  const problem = `${path}: is read-only${via}, mode ${octal}`;
  throw new CordonError(ERROR_CODES.CONFIG_EDIT, `${problem}; cordon does not write over a file that is not writable: make it writable (chmod u+w ${target}) and run again, or leave cordon's hooks out of it; nothing was written`, {
    details: { path, target, mode: octal, reason: 'read-only', problem },
  });
}

/**
 * Refuses a change to a config `path` whose file has more than one hard link
 * (`CORDON_CONFIG_EDIT`, naming it and the count): the atomic write puts a new file in place by a
 * rename, which would split this name from the others (a dotfiles repository holding the same
 * file under another name kept the old bytes, silently, and went on diverging). A symbolic link
 * is written through (its target is what counts); a missing file passes.
 */
export function refuseHardLinked(path: string): void {
  let target: string;
  let links: number;
  try {
    target = writeTarget(path);
    links = statSync(target).nlink;
  } catch {
    return; // Missing (created by install) or unreadable: reading it has already said why.
  }
  if (links <= 1) return;
  const via = target === resolve(path) ? '' : ` (through the link to ${target})`;
  const problem = `${path}: is one of ${links} hard links to the same file${via}`;
  throw new CordonError(ERROR_CODES.CONFIG_EDIT, `${problem}; cordon writes a config by renaming a new file into place, which would split this name from the others: make the other names symbolic links to it (cordon writes through those), or this one a copy of its own, then run again; nothing was written`, {
    details: { path, target, links, reason: 'hard-linked', problem },
  });
}

/** True when `path` is an existing directory (symlinks followed). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** True when `path` itself is a symbolic link. */
export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The first executable `name` in the directories of `pathVar` (`PATH`, split on this OS's
 * delimiter); `undefined` when there is none. On Windows (`platform` `win32`) a name without one
 * of the `pathExt` extensions (`PATHEXT`, default `.COM;.EXE;.BAT;.CMD`, compared without case) is
 * also tried with each of them, in that order, as cmd.exe does (`claude` finds `claude.cmd`).
 */
export function whichIn(name: string, pathVar: string | undefined, platform: string = process.platform, pathExt: string | undefined = process.env.PATHEXT): string | undefined {
  for (const candidate of pathCandidates(name, pathVar, { platform, pathExt, skipEmpty: true })) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * Puts `text` at `path` (`undefined` deletes it), atomically through {@link writeFileAtomic}: an
 * agent reading the file concurrently sees the old or the new version, never half. A config that
 * is a symbolic link (a dotfiles repository; absolute, relative or chained) keeps its link: the
 * file it points at is written, with the temp file beside that target, and a link is never
 * deleted (the caller decides deletion; see run.ts). An existing file keeps its mode, owner and
 * group; a new one is 0600 (agents' configs can hold keys), and created by root in another
 * user's directory it and the directories made for it are that user's. With `expected`, the file
 * must still hold `expected.before` (`undefined`: be absent), what the plan was made from;
 * otherwise nothing is written and an error says that it changed.
 */
export function putText(path: string, text: string | undefined, expected?: { readonly before: string | undefined }): string[] {
  if (expected && readText(path) !== expected.before) {
    // Someone wrote the file after it was read for the plan (the agent saving a setting, an
    // editor): writing the plan's text now would drop that change.
    throw Object.assign(new Error(`${path} changed after install-hooks read it (another program wrote it meanwhile); it was not written, so that change stays: run the command again`), { code: 'ECHANGED' });
  }
  if (text === undefined) {
    rmSync(path, { force: true });
    return [];
  }
  const target = writeTarget(path);
  const owner = existsSync(target) ? undefined : ownerOfNearestDirectory(dirname(target));
  const created = makeParents(dirname(target));
  writeFileAtomic(target, text);
  if (owner) for (const made of [...created, target]) chownSync(made, owner.uid, owner.gid);
  return created;
}

/**
 * The owner a file and directories root creates should get: that of the nearest existing
 * directory above them, when this process is root and it is someone else's (`sudo cordon
 * install-hooks --write` with a user's `HOME` creating `~/.codex/hooks.json` in their
 * `~/.codex`, or `~/.gemini` in their home). Without it they were root's, 0600 and 0700, so the
 * agent, running as that user, could not read them and ran no hooks. `undefined` otherwise.
 */
function ownerOfNearestDirectory(dir: string): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (let current = dir; ; current = dirname(current)) {
    try {
      const stat = statSync(current);
      return stat.uid === 0 && stat.gid === 0 ? undefined : { uid: stat.uid, gid: stat.gid };
    } catch {
      if (dirname(current) === current) return undefined;
    }
  }
}

/**
 * Removes the directories of `dirs` that are empty, deepest first; one that holds anything is
 * kept, and so are the ones above it. `dirs` may gather the chains {@link putText} returned for
 * several files (an agent writing two files into the one directory install created, such as
 * `~/.codex/hooks.json` and `~/.codex/config.toml`): call it once after all of them are deleted,
 * since the directory empties only with the last.
 */
export function removeEmptyDirs(dirs: readonly string[]): void {
  const deepestFirst = [...new Set(dirs)].sort((a, b) => b.length - a.length);
  for (const dir of deepestFirst) {
    try {
      rmdirSync(dir);
    } catch {
      // Not empty (or gone): kept, and its parents then fail the same way.
    }
  }
}

/**
 * Creates `dir` and its missing parents one level at a time. Not `mkdirSync(…, {recursive})`:
 * on a path it can never create (a dangling link into `/proc`) Node's recursive mkdir retries
 * forever; here the first failing level throws.
 */
function makeParents(dir: string): string[] {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current); current = dirname(current)) {
    missing.push(current);
    if (dirname(current) === current) break;
  }
  missing.reverse();
  for (const level of missing) mkdirSync(level);
  return missing;
}
