import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import type { RepoLocation } from '../git/repo.js';
import type { AuditRecord } from '../audit/record.js';
import { canonicalBody, canonicalJson } from './canonical-json.js';
import { fsyncDirectory, writeFileAtomic } from '../../io/atomic-write.js';
import { hashFile, sha256 } from './exclude.js';
import { configProblem, nowIso, snapshotProblem, stateProblem, type EnvelopeConfig, type EnvelopeSnapshot, type EnvelopeState } from './schema.js';

/** Name of the state directory at the work-tree root (DESIGN.md "Data"). */
export const CORDON_DIR = '.cordon';

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
 * Creates `.cordon/` (mode 0700; fails when it exists: "already armed") and writes config,
 * snapshot and state as canonical JSON, each atomically with mode 0600 (research §4.1). The
 * state gets the hashes of the other two. Returns the written envelope.
 */
export function createEnvelope(root: string, config: EnvelopeConfig, snapshot: EnvelopeSnapshot, init: { max_attempts: number; exclude_sha256: string }): Envelope {
  const paths = envelopePaths(root);
  try {
    mkdirSync(paths.dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyArmed();
    throw error;
  }
  writeFileAtomic(paths.config, canonicalJson(config));
  writeFileAtomic(paths.snapshot, canonicalJson(snapshot));
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
  writeFileAtomic(paths.state, canonicalJson(state));
  fsyncDirectory(root);
  return { paths, config, snapshot, state };
}

/** The "already armed" refusal (research §5 step 2). */
export function alreadyArmed(): CordonError {
  return new CordonError(ERROR_CODES.BAD_STATE, 'Cordon is already armed; run `cordon reset` to discard the envelope first');
}

/**
 * Loads and validates the envelope of `loc` (research §4.5): every file present, parseable,
 * of exactly the expected shape and version; the config and snapshot hashes match the state;
 * `info/exclude` is unchanged since arming; the envelope was armed in this work tree. Every
 * failure is `CORDON_BAD_STATE` (exit 2) naming the problem (`nothing is armed in <root> …`
 * when `.cordon/` does not exist).
 */
export function loadEnvelope(loc: RepoLocation): Envelope {
  const paths = envelopePaths(loc.root);
  if (!envelopeExists(loc.root)) throw badState(`nothing is armed in ${loc.root} (run \`cordon arm\` first)`);
  const config = readJson(paths.config, 'config') as EnvelopeConfig;
  const configBad = configProblem(config);
  if (configBad) throw badState(configBad);
  const state = readJson(paths.state, 'state') as EnvelopeState;
  const stateBad = stateProblem(state);
  if (stateBad) throw badState(stateBad);
  if (sha256(canonicalBody(config)) !== state.config_sha256) throw badState('config.json does not match the hash recorded in state.json');
  const snapshot = readJson(paths.snapshot, 'snapshot') as EnvelopeSnapshot;
  const snapshotBad = snapshotProblem(snapshot);
  if (snapshotBad) throw badState(snapshotBad);
  if (sha256(canonicalBody(snapshot)) !== state.snapshot_sha256) throw badState('snapshot.json does not match the hash recorded in state.json');
  if (config.repo.root !== loc.root || config.repo.git_dir !== loc.gitDir) {
    throw badState(`the envelope was armed in ${config.repo.root} (git dir ${config.repo.git_dir}), not ${loc.root} (git dir ${loc.gitDir}); run \`cordon reset\` and arm again`);
  }
  if (hashFile(loc.excludeFile) !== state.exclude_sha256) {
    throw badState(
      `${loc.excludeFile} changed after Cordon was armed; restore the content it had then (kept in .cordon/snapshot.json as git.info_exclude), or run \`cordon reset\` and arm again`,
    );
  }
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

/** Writes `.cordon/audit.json` (research §4.4). */
export function saveAudit(root: string, audit: AuditRecord): void {
  writeFileAtomic(envelopePaths(root).audit, canonicalJson(audit));
}

/**
 * Removes `.cordon/` (research §13): renames it to `.cordon.remove-<pid>-<ns>`, fsyncs the
 * root, deletes the tombstone, fsyncs again. Does not validate the state, so a corrupt
 * envelope can always be reset. Returns false when there was nothing to remove.
 */
export function removeEnvelope(root: string): boolean {
  const { dir } = envelopePaths(root);
  if (!existsSync(dir)) return false;
  const tombstone = join(root, `${CORDON_DIR}.remove-${process.pid}-${process.hrtime.bigint()}`);
  renameSync(dir, tombstone);
  fsyncDirectory(root);
  rmSync(tombstone, { recursive: true, force: true });
  fsyncDirectory(root);
  return true;
}

/**
 * `path` parsed as JSON. Throws `CORDON_BAD_STATE` naming `what` (config, state, …) when the
 * file is missing, unreadable or not JSON.
 */
export function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw badState(code === 'ENOENT' ? `Cordon ${what} is missing from .cordon/ (the envelope is damaged; run \`cordon reset\` and arm again)` : `cannot read ${what}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badState(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

function badState(message: string): CordonError {
  return new CordonError(ERROR_CODES.BAD_STATE, message);
}
