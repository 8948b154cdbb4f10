import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CordonError, ERROR_CODES, type JsonDetails } from '../../errors/index.js';
import type { RepoLocation } from '../git/repo.js';
import type { AuditRecord } from '../audit/record.js';
import { canonicalBody, canonicalJson } from './canonical-json.js';
import { fsyncDirectory, writeFileAtomic } from '../../io/atomic-write.js';
import { fileKind, readRegularFile, UnsafeReadError } from '../../io/safe-read.js';
import { hashFile, sha256 } from './exclude.js';
import { isOwnStateName, scratchParent, type ForeignDir } from './own-dir.js';
import { configProblem, nowIso, snapshotProblem, stateProblem, type EnvelopeConfig, type EnvelopeSnapshot, type EnvelopeState } from './schema.js';
import { randomHex } from '../../util/random.js';
import { CORDON_DIR } from './dir-name.js';
import { KnownDigests } from './known-digests.js';
import { resolvePaths } from '../../util/paths.js';

export { CORDON_DIR };

/** Files of one envelope. */
export interface EnvelopePaths {
  readonly dir: string;
  readonly config: string;
  readonly snapshot: string;
  readonly state: string;
  readonly audit: string;
}

/** Where the envelope of the work tree at `root` lives. */
export function envelopePaths(root: string): EnvelopePaths {
  const dir = join(root, CORDON_DIR);
  return { dir, config: join(dir, 'config.json'), snapshot: join(dir, 'snapshot.json'), state: join(dir, 'state.json'), audit: join(dir, 'audit.json') };
}

/** True when `.cordon/` exists (armed, or left corrupt). */
export function envelopeExists(root: string): boolean {
  return existsSync(envelopePaths(root).dir);
}

/** A loaded, validated envelope. */
export interface Envelope {
  readonly paths: EnvelopePaths;
  readonly config: EnvelopeConfig;
  readonly snapshot: EnvelopeSnapshot;
  readonly state: EnvelopeState;
}

/**
 * Writes a new envelope (the BEKO2210/SkillQuarry cordon) so that it appears whole or not at all:
 * config, snapshot and state (which gets the hashes of the other two) are written as
 * canonical JSON, mode 0600, into a private scratch directory beside the work tree
 * (`<git dir>/cordon-arm-<random>`, or `<root>/.cordon.arm-<random>` when the git directory is
 * on another file system), fsynced, and the directory is renamed to `.cordon/` in one step. A
 * reader without the lock (`status`) therefore never sees a half-written envelope, and a killed
 * arm leaves only the scratch directory, which the next locked command removes
 * (`finishInterrupted`). Fails with "already armed" when `.cordon/` holds anything.
 */
export function createEnvelope(loc: Pick<RepoLocation, 'root' | 'gitDir'>, config: EnvelopeConfig, snapshot: EnvelopeSnapshot, init: { max_attempts: number; exclude_sha256: string }): Envelope {
  const root = loc.root;
  const paths = envelopePaths(root);
  const state: EnvelopeState = {
    schema_version: 1,
    phase: 'armed',
    attempt: 0,
    max_attempts: init.max_attempts,
    config_sha256: sha256(canonicalBody(config)),
    snapshot_sha256: sha256(canonicalBody(snapshot)),
    exclude_sha256: init.exclude_sha256,
    last_error: null,
    last_audit: null,
    updated_at: nowIso(),
  };
  const build = (parent: { dir: string; inGitDir: boolean }): void => {
    const stage = join(parent.dir, scratchName('arm', parent.inGitDir));
    mkdirSync(stage, { mode: 0o700 });
    try {
      chmodSync(stage, 0o700);
      writeFileAtomic(join(stage, 'config.json'), canonicalJson(config), { mode: 0o600 });
      writeFileAtomic(join(stage, 'snapshot.json'), canonicalJson(snapshot), { mode: 0o600 });
      writeFileAtomic(join(stage, 'state.json'), canonicalJson(state), { mode: 0o600 });
      fsyncDirectory(stage);
      renameSync(stage, paths.dir);
    } catch (error) {
      rmSync(stage, { recursive: true, force: true });
      throw error;
    }
    fsyncDirectory(root);
    if (parent.dir !== root) fsyncDirectory(parent.dir);
  };
  try {
    try {
      build(scratchParent(loc));
    } catch (error) {
      // A bind mount can make one device refuse a rename across it: build beside `.cordon/` instead.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      build({ dir: root, inGitDir: false });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'ENOTDIR') throw alreadyArmed(config.mode !== 'manual');
    throw error;
  }
  return { paths, config, snapshot, state };
}

/**
 * Name of one of cordon's scratch directories: `cordon-<kind>-<24 hex>` inside the git dir,
 * `.cordon.<kind>-<24 hex>` in the work-tree root (see {@link isScratchName}).
 */
export function scratchName(kind: 'arm' | 'remove', inGitDir: boolean): string {
  const id = randomHex(12);
  return inGitDir ? `cordon-${kind}-${id}` : `${CORDON_DIR}.${kind}-${id}`;
}

/**
 * True for the names of scratch directories an interrupted arm or reset can leave:
 * {@link scratchName}'s, and `.cordon.remove-<pid>-<ns>` of earlier versions (root only).
 */
export function isScratchName(name: string, inGitDir: boolean): boolean {
  return inGitDir ? /^cordon-(arm|remove)-[0-9a-f]{24}$/.test(name) : /^\.cordon\.(arm-[0-9a-f]{24}|remove-[0-9a-f]{24}|remove-[0-9]+-[0-9]+)$/.test(name);
}

/**
 * The "already armed" refusal (the BEKO2210/SkillQuarry cordon step 2). For `cordon run`
 * (`forRun`) it also names `cordon resume`, which gives an earlier run's task another attempt.
 */
export function alreadyArmed(forRun = false): CordonError {
  const resume = forRun ? ', or `cordon resume` to give the task of an earlier `cordon run` another attempt' : '';
  return new CordonError(ERROR_CODES.BAD_STATE, `cordon is already armed; run \`cordon reset\` to discard the envelope first${resume}`);
}

/** Options of {@link loadEnvelope}. */
export interface LoadOptions {
  /**
   * What the refusal when nothing is armed tells the user to run first, in its parentheses:
   * default ``run `cordon arm` first``; `resume` names `cordon run`, whose attempts it continues.
   */
  readonly armFirst?: string;
}

/**
 * Loads and validates the envelope of `loc` (the BEKO2210/SkillQuarry cordon): every file present, parseable,
 * of exactly the expected shape and version; the config and snapshot hashes match the state;
 * `info/exclude` is unchanged since arming; the envelope was armed in this work tree. Every
 * failure is `CORDON_BAD_STATE` (exit 2) naming the problem (`nothing is armed in <root> …`
 * when `.cordon/` does not exist).
 */
export function loadEnvelope(loc: RepoLocation, options: LoadOptions = {}): Envelope {
  const paths = envelopePaths(loc.root);
  // The root in `details` too: the message is escaped for a terminal, `--json` readers get the path as it is.
  if (!envelopeExists(loc.root)) throw badState(`nothing is armed in ${loc.root} (${options.armFirst ?? 'run `cordon arm` first'})`, { root: loc.root });
  // A `.cordon` that is a symbolic link (to a directory anywhere) is not read through: its
  // envelope would be read from, and verdicts written to, outside the work tree, and `reset`,
  // which this refusal matches, would not remove it.
  const dirStat = lstatSync(paths.dir, { throwIfNoEntry: false });
  if (dirStat && !dirStat.isDirectory()) throw foreignState(loc.root, { reason: `it is ${fileKind(dirStat)}, not a directory` });
  const strangers = foreignEntries(paths.dir);
  if (strangers) throw foreignState(loc.root, strangers);
  // Digests computed by an earlier check for files that have not changed since (known-digests.ts).
  const known = new KnownDigests(resolvePaths().cacheDir);
  const configId = known.identify(paths.config);
  const config = readJson(paths.config, 'config') as EnvelopeConfig;
  const configBad = configProblem(config);
  if (configBad) throw damaged(configBad);
  const state = readJson(paths.state, 'state') as EnvelopeState;
  const stateBad = stateProblem(state);
  if (stateBad) throw damaged(stateBad);
  if (!known.matches(configId, state.config_sha256, () => sha256(canonicalBody(config)))) throw damaged('config.json does not match the hash recorded in state.json');
  const snapshotId = known.identify(paths.snapshot);
  const snapshot = readJson(paths.snapshot, 'snapshot') as EnvelopeSnapshot;
  const snapshotBad = snapshotProblem(snapshot);
  if (snapshotBad) throw damaged(snapshotBad);
  if (!known.matches(snapshotId, state.snapshot_sha256, () => sha256(canonicalBody(snapshot)))) throw damaged('snapshot.json does not match the hash recorded in state.json');
  if (config.repo.root !== loc.root || config.repo.git_dir !== loc.gitDir) {
    throw badState(`the envelope was armed in ${config.repo.root} (git dir ${config.repo.git_dir}), not ${loc.root} (git dir ${loc.gitDir}); run \`cordon reset\` and arm again`);
  }
  const excludeId = known.identify(loc.excludeFile);
  if (!known.matches(excludeId, state.exclude_sha256, () => hashFile(loc.excludeFile))) {
    throw badState(
      `${loc.excludeFile} changed after cordon was armed; restore the content it had then (kept in .cordon/snapshot.json as git.info_exclude), or run \`cordon reset\` and arm again`,
    );
  }
  known.save();
  return { paths, config, snapshot, state };
}

/** Persists `state` (with a fresh `updated_at`) atomically and returns what was written. */
export function saveState(root: string, state: EnvelopeState): EnvelopeState {
  const next = { ...state, updated_at: nowIso() };
  const bad = stateProblem(next);
  if (bad) throw new CordonError(ERROR_CODES.INTERNAL, `refusing to write an invalid state: ${bad}`);
  writeFileAtomic(envelopePaths(root).state, canonicalJson(next));
  return next;
}

/**
 * Writes `.cordon/audit.json` (the BEKO2210/SkillQuarry cordon), then persists `state` as
 * {@link saveState} does, and returns what was written. Both files are renamed into `.cordon/`
 * and then the directory is fsynced once, which makes both renames durable: a verdict costs three
 * fsyncs instead of four (about 0.4 ms of waiting, `npm run bench:envelope`). A crash in between
 * leaves each file old or new, as two separate writes would.
 */
export function saveAuditAndState(root: string, audit: AuditRecord, state: EnvelopeState): EnvelopeState {
  writeFileAtomic(envelopePaths(root).audit, canonicalJson(audit), { syncDirectory: false });
  return saveState(root, state);
}

/**
 * Removes `.cordon/` (the BEKO2210/SkillQuarry cordon), which the caller has recognised as cordon's own
 * (`stateDirOwner`): renames it to a scratch directory (in the git dir when it is on the same
 * file system, else `.cordon.remove-<random>` in the root), fsyncs, deletes that, fsyncs again.
 * The rename is the commit point: once it happened nothing is armed, and the next locked
 * command finishes the deletion if this process is killed first (`finishInterrupted`). Does not
 * validate the state, so a corrupt envelope can always be reset. Returns false when there was
 * nothing to remove.
 */
export function removeEnvelope(loc: Pick<RepoLocation, 'root' | 'gitDir'>): boolean {
  const { dir } = envelopePaths(loc.root);
  if (!existsSync(dir)) return false;
  let parent = scratchParent(loc);
  let tombstone = join(parent.dir, scratchName('remove', parent.inGitDir));
  try {
    try {
      renameSync(dir, tombstone);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      parent = { dir: loc.root, inGitDir: false };
      tombstone = join(parent.dir, scratchName('remove', false));
      renameSync(dir, tombstone);
    }
  } catch (error) {
    // Nothing was removed: say why in the user's terms (moving a directory needs write permission on it and on its parent).
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new CordonError(ERROR_CODES.STATE_WRITE, `cannot remove ${dir}: ${code}${code === 'EACCES' || code === 'EPERM' ? ' (permission denied: check the owner and mode of .cordon/ and of the work-tree root)' : ''}; the envelope is left as it was`, { cause: error, details: { path: dir, errno: code } });
  }
  fsyncDirectory(loc.root);
  if (parent.dir !== loc.root) fsyncDirectory(parent.dir);
  rmSync(tombstone, { recursive: true, force: true });
  fsyncDirectory(parent.dir);
  return true;
}

/**
 * Removes cordon's own files from `.cordon/` and leaves everything else in it: for an envelope
 * beside which someone put files cordon did not write (`stateDirOwner` found them and git tracks
 * none of them), which `cordon reset` discards without touching those files. `state.json` goes
 * first, so a process killed midway leaves an envelope that reads as damaged and that reset
 * finishes; then the other own names that are regular files (own-dir.ts `isOwnStateName`:
 * `config.json`, `snapshot.json`, `audit.json`, `attempt-<n>.json`, temp files of atomic
 * writes); the directory is fsynced. Returns the names left, sorted.
 * @throws CordonError `CORDON_STATE_WRITE` naming the file that could not be removed.
 */
export function removeEnvelopeFiles(root: string): string[] {
  const { dir } = envelopePaths(root);
  const names = readdirSync(dir).sort((a, b) => Number(b === 'state.json') - Number(a === 'state.json'));
  const kept: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let own = false;
    try {
      own = isOwnStateName(name) && lstatSync(path).isFile();
    } catch {
      continue;
    }
    if (!own) {
      kept.push(name);
      continue;
    }
    try {
      unlinkSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'ENOENT') continue;
      throw new CordonError(ERROR_CODES.STATE_WRITE, `cannot remove ${path}: ${code}${code === 'EACCES' || code === 'EPERM' ? ' (permission denied: check the owner and mode of .cordon/)' : ''}; run \`cordon reset\` again once that is fixed`, { cause: error, details: { path, errno: code } });
    }
  }
  fsyncDirectory(dir);
  return kept.sort();
}

/** Largest state file read (`snapshot.json` fingerprints every ignored file not covered by --allow-ignored). */
export const STATE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * `path` parsed as JSON, read with `readRegularFile` (no link followed, no FIFO or device, at most
 * {@link STATE_MAX_BYTES}), since the audited agent can replace any file under `.cordon/`.
 * Throws `CORDON_BAD_STATE` naming `what` (config, state, …) and the path when the file is
 * missing, not a regular file, too large, unreadable or not JSON; the message never holds the
 * file's content.
 */
export function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readRegularFile(path, { maxBytes: STATE_MAX_BYTES }).toString('utf8');
  } catch (error) {
    if (error instanceof UnsafeReadError && error.reason === 'missing') {
      throw damaged(`the cordon ${what} is missing from .cordon/`);
    }
    const code = (error as NodeJS.ErrnoException).code;
    // `.cordon` itself is not a directory (a file, a device): not cordon's, whatever the file
    // read; said as `reset` and `check` say it, since `reset` will not remove it either.
    if (code === 'ENOTDIR' && basename(dirname(path)) === CORDON_DIR) {
      let kind = 'not a directory';
      try {
        kind = `${fileKind(lstatSync(dirname(path)))}, not a directory`;
      } catch {
        // Gone meanwhile: the plain words.
      }
      throw foreignState(dirname(dirname(path)), { reason: `it is ${kind}` });
    }
    const why = error instanceof UnsafeReadError ? error.message : `${path}: ${code ?? (error as Error).message}`;
    // Permissions are not damage: another user (root) may have written the file, or .cordon/ lost its modes.
    if (code === 'EACCES' || code === 'EPERM' || /\bEACCES\b|\bEPERM\b/.test(why)) {
      throw badState(`cannot read the cordon ${what}: ${why} (permission denied: check the owner and mode of .cordon/ and its files; cordon writes them 0600 for the user who armed)`);
    }
    throw damaged(`cannot read the cordon ${what}: ${why}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text; say where instead.
    throw damaged(`${what} is not valid JSON (${path}, ${text.length} characters)`);
  }
}

/** The state files {@link loadEnvelope} reads (and refuses by name when one is no regular file). */
const READ_ON_LOAD: ReadonlySet<string> = new Set(['config.json', 'snapshot.json', 'state.json']);

/**
 * The entries in `dir` that cordon never writes, sorted: a name it does not write (see
 * `isOwnStateName`), or one of its names that no load reads ({@link READ_ON_LOAD}) held by
 * something other than a regular file (a FIFO, a directory or a link at `audit.json`, which
 * `reset` keeps as not cordon's: so check and status,
 * which would otherwise only fail to save a verdict there, say so too, as `stateDirOwner` in
 * own-dir.ts does); and whether any of cordon's files is there too. Undefined when there are
 * none or the directory cannot be listed (the caller's next read reports that). `stateDirOwner`
 * also asks git.
 */
export function foreignEntries(dir: string): ForeignDir | undefined {
  try {
    const names = readdirSync(dir).sort();
    const strays: string[] = [];
    const shown: string[] = [];
    for (const name of names) {
      if (!isOwnStateName(name)) {
        strays.push(name);
        shown.push(name);
        continue;
      }
      // The files every load reads name themselves when they are no regular file (readJson).
      if (READ_ON_LOAD.has(name)) continue;
      const entry = lstatSync(join(dir, name), { throwIfNoEntry: false });
      if (entry && !entry.isFile()) {
        strays.push(name);
        shown.push(`${name} (${fileKind(entry)})`);
      }
    }
    if (strays.length === 0) return undefined;
    return { reason: `it holds ${quoteNames(shown)}, which cordon does not write`, strays, holdsEnvelope: strays.length < names.length };
  } catch {
    return undefined;
  }
}

/**
 * `mv .cordon/a .cordon/b <another directory>`: the command that takes `strays` (names in
 * `.cordon/`, at most five of them) out of the state directory, for advice; undefined when a
 * name would need quoting for a shell (anything beyond letters, digits and `_@%+=:,.-`), since the
 * fast routes carry no shell quoting (the advice then names the files only, JSON-quoted).
 */
export function strayMoveCommand(strays: readonly string[]): string | undefined {
  if (strays.length === 0 || strays.length > 5 || !strays.every((name) => /^[A-Za-z0-9_@%+=:,.-]+$/.test(name))) return undefined;
  return `mv ${strays.map((name) => `${CORDON_DIR}/${name}`).join(' ')} <another directory>`;
}

/** At most five names, JSON-quoted, then how many more. */
function quoteNames(names: readonly string[]): string {
  return `${names.slice(0, 5).map((n) => JSON.stringify(n)).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;
}

/**
 * The refusal for a `.cordon/` that is not Cordon's: what makes it foreign, that nothing in it
 * was touched, and the way out.
 *
 * - An envelope with files cordon did not write beside its own (`holdsEnvelope`, git tracking
 *   none of them): those files are named, and moving them out of `.cordon/` (or deleting them
 *   when nothing needs them) is the fix, after which the envelope works as before; `cordon reset`
 *   would discard the envelope and leave them.
 * - Anything else (another tool's directory, a file, a link, tracked files): rename the
 *   directory: `mv` when git tracks nothing in it (`tracked` false; `git mv` refuses an untracked
 *   directory), `git mv` and commit when it tracks something, both when that is not known
 *   (`check` and `status` do not ask git).
 */
export function foreignState(root: string, foreign: ForeignDir): CordonError {
  const { reason: why, tracked, strays = [] } = foreign;
  const dir = join(root, CORDON_DIR);
  const details = { dir, reason: why, ...(tracked === undefined ? {} : { tracked }), ...(strays.length > 0 ? { strays } : {}) };
  if (foreign.holdsEnvelope && strays.length > 0 && tracked !== true) {
    const one = strays.length === 1;
    const move = strayMoveCommand(strays);
    return new CordonError(
      ERROR_CODES.STATE_FOREIGN,
      `${dir} holds the envelope and ${quoteNames(strays)}, which cordon did not write there. cordon never deletes or overwrites files it did not write, so it left the directory as it is; move ${one ? 'that file' : 'those files'} out of ${CORDON_DIR}/${move ? ` (e.g. \`${move}\`)` : ''}, or delete ${one ? 'it' : 'them'} if nothing needs ${one ? 'it' : 'them'}, and the envelope works again (\`cordon reset\` would discard the envelope and leave ${one ? 'it' : 'them'} in ${CORDON_DIR}/)`,
      { details },
    );
  }
  // `git mv` refuses an untracked directory, and plain `mv` of a tracked one leaves git a deletion to commit.
  const rename =
    tracked === true
      ? `\`git mv ${CORDON_DIR} <another name>\` and commit`
      : tracked === false
        ? `\`mv ${CORDON_DIR} <another name>\``
        : `\`mv ${CORDON_DIR} <another name>\`, or \`git mv ${CORDON_DIR} <another name>\` and commit if git tracks files in it`;
  return new CordonError(
    ERROR_CODES.STATE_FOREIGN,
    `${dir} is not cordon's state directory: ${why}. cordon keeps an envelope in ${CORDON_DIR}/ at the work-tree root and never deletes or overwrites files it did not write, so it left ${CORDON_DIR} as it is; to use cordon in this work tree, rename it (e.g. ${rename})`,
    { details },
  );
}

function badState(message: string, details?: JsonDetails): CordonError {
  return new CordonError(ERROR_CODES.BAD_STATE, message, details === undefined ? undefined : { details });
}

/** {@link badState} for `.cordon/` files that cannot be used as they are, with the way out. */
function damaged(message: string): CordonError {
  return badState(`${message} (the envelope is damaged; run \`cordon reset\` and arm again)`);
}
