import { CordonError, ERROR_CODES } from '../errors/index.js';
import { absPath } from './evidence/fs-path.js';
import { treePrint } from './evidence/fingerprint.js';
import { nameSome, readIndexState } from './evidence/index-state.js';
import { snapshotIgnored } from './evidence/untracked.js';
import { printVerifierTools } from './evidence/verifier-tools.js';
import { IgnoreOracle } from './git/ignore-oracle.js';
import { hookConfigHint } from './hook-config-hint.js';
import { discoverRepoOf, resolveCommit, type RepoLocation } from './git/repo.js';
import { git } from './git/run-git.js';
import { createShadowGit, readGitRules } from './git/shadow.js';
import { acquireLock, type LockHandle } from './lock.js';
import { displayPath, pathText } from './path-text.js';
import { compilePathRules } from './policy/policy.js';
import type { EnvelopeSettings } from './settings.js';
import { readExclude, registerExclude } from './state/exclude.js';
import { stateDirOwner } from './state/own-dir.js';
import { finishInterrupted } from './state/recover.js';
import { nowIso, type EnvelopeConfig, type EnvelopeSnapshot } from './state/schema.js';
import { alreadyArmed, CORDON_DIR, createEnvelope, envelopePaths, foreignState, type Envelope } from './state/store.js';
import { checkLabel } from './settings.js';

/** What to arm. */
export interface ArmRequest {
  /** Task text; trimmed, non-blank, ≤ 16384 characters. */
  readonly label: string;
  /** Resolved policy, verifiers and attempt ceiling (see `resolveSettings`). */
  readonly settings: EnvelopeSettings;
  /** `manual` (default) or the runner name for `run`. */
  readonly mode?: string;
  /** Runner options stored for `run`/`resume`, or null (default). */
  readonly runner?: Readonly<Record<string, unknown>> | null;
}

/** Where and how to arm. */
export interface ArmOptions {
  /** Any path inside the work tree (default: cwd). */
  readonly repo?: string;
  /** A lock the caller already holds (`run` holds one across arm, the agent and the audit). */
  readonly lock?: LockHandle;
  /** Environment for git config lookups (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Arms an envelope (the BEKO2210/SkillQuarry cordon, hardened: docs/envelopes.md), under the repository lock:
 *
 * 0. finish what a killed cordon left half done (`finishInterrupted`);
 * 1. refuse when `.cordon/` exists (a foreign one with `CORDON_STATE_FOREIGN`), HEAD is unborn, the tree is not clean
 *    (`git status --porcelain=v1 -z --untracked-files=normal`; ignored files are fine), or a
 *    tracked file carries assume-unchanged / skip-worktree;
 * 2. record the baseline commit, the git rules in force (settings, `info/exclude`,
 *    `info/attributes`, global excludes/attributes files, every `.gitignore`), a fingerprint of
 *    each ignored entry and submodule work tree;
 * 3. register `/.cordon/` in `info/exclude`, write `.cordon/` (phase `armed`).
 *
 * Refusals throw `CordonError` with exit 2 (`BAD_INPUT`, `BAD_STATE`, `REPO_ERROR`, `LOCK_HELD`).
 */
export async function arm(request: ArmRequest, options: ArmOptions = {}): Promise<Envelope> {
  const label = checkLabel(request.label);
  const mode = request.mode ?? 'manual';
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(mode)) throw new CordonError(ERROR_CODES.BAD_INPUT, `invalid envelope mode ${JSON.stringify(mode)}`);
  const loc = await discoverRepoOf(options.repo);
  const lock = options.lock ?? acquireLock(loc.lockFile, 'arm');
  try {
    return await armLocked(loc, label, mode, request, options.env ?? process.env);
  } finally {
    if (!options.lock) lock.release();
  }
}

async function armLocked(loc: RepoLocation, label: string, mode: string, request: ArmRequest, env: NodeJS.ProcessEnv): Promise<Envelope> {
  await finishInterrupted(loc);
  const owner = await stateDirOwner(envelopePaths(loc.root).dir, loc, CORDON_DIR);
  if (owner.kind === 'foreign') throw foreignState(loc.root, owner);
  if (owner.kind === 'own') throw alreadyArmed(mode !== 'manual');
  const baseline = await resolveCommit(loc, 'HEAD');
  const rules = await readGitRules(loc, env, baseline);
  const shadow = createShadowGit(loc, rules, baseline, env);
  const oracle = new IgnoreOracle(shadow.ignoring());
  let snapshot: EnvelopeSnapshot;
  try {
    // Tracked changes only: untracked paths are listed below exactly as `check` lists them.
    const { stdout } = await git(shadow.inv, ['status', '--porcelain=v1', '-z', '--untracked-files=no', '--ignore-submodules=dirty']);
    const dirty = stdout.toString('latin1').split('\0').filter(Boolean);
    const shown = dirty.map((r) => `${displayPath(pathText(Buffer.from(r.slice(3), 'latin1')))} (${statusWords(r.slice(0, 2))})`);
    const index = await readIndexState(shadow.inv);
    const policy = request.settings.policy;
    const { snapshot: ignored, unignored } = await snapshotIgnored({
      root: loc.root,
      inv: shadow.inv,
      oracle,
      rules: compilePathRules(policy),
      allowIgnored: policy.allow_ignored,
      trackedGitignores: index.gitignores,
    });
    shown.push(...unignored.map((u) => `${displayPath(u.path)} (untracked)`));
    // Allowed is not invisible: the executables a verifier runs that --allow-ignored covers are fingerprinted.
    if (policy.allow_ignored.length > 0) {
      const tools = printVerifierTools(loc.root, request.settings.verify.commands, compilePathRules(policy).ignoredAllowed);
      if (Object.keys(tools).length > 0) Object.assign(ignored, { verifier_tools: tools });
    }
    if (shown.length > 0) {
      // Only untracked hook configs in the way (install-hooks --scope project): say how to keep them out of git.
      const hint = dirty.length === 0 ? hookConfigHint(loc.root, unignored) : undefined;
      throw new CordonError(ERROR_CODES.REPO_ERROR, `working tree must be clean before cordon arms an envelope (commit or stash first): ${nameSome(shown)}${hint ? `; ${hint}` : ''}`);
    }
    if (index.hidden.length > 0) {
      throw new CordonError(ERROR_CODES.REPO_ERROR, `tracked paths are hidden from the audit by git index flags: ${nameSome(index.hidden.map(displayPath))}; clear them with \`git update-index --no-assume-unchanged <path>\` and \`git update-index --no-skip-worktree <path>\``, { details: { paths: index.hidden } });
    }
    const submodules: Record<string, string> = {};
    for (const path of index.gitlinks) submodules[path] = treePrint(absPath(loc.root, path), path) ?? 'missing';
    snapshot = { schema_version: 1, git: rules, ignored, submodules };
  } finally {
    oracle.close();
    shadow.dispose();
  }
  const exclude_sha256 = registerExclude(loc.excludeFile);
  const finalSnapshot: EnvelopeSnapshot = { ...snapshot, git: { ...snapshot.git, info_exclude: pathText(readExclude(loc.excludeFile, false)!) } };
  const config: EnvelopeConfig = {
    schema_version: 1,
    mode,
    label,
    baseline,
    created_at: nowIso(),
    policy: request.settings.policy,
    verify: request.settings.verify,
    runner: request.runner ?? null,
    repo: { root: loc.root, git_dir: loc.gitDir },
    ...(request.settings.live ? { live: true } : {}),
  };
  return createEnvelope(loc, config, finalSnapshot, { max_attempts: request.settings.max_attempts, exclude_sha256 });
}

/** Index / work-tree letters of `git status --porcelain` (git-status(1) "Short Format"). */
const STATUS_LETTERS: Readonly<Record<string, string>> = { M: 'modified', T: 'type changed', A: 'added', D: 'deleted', R: 'renamed', C: 'copied' };

/**
 * A porcelain v1 `XY` code in words: `??` untracked, `UU`/`AA`/`DD` or any `U` unmerged, else the
 * staged change (X) marked as staged and the unstaged one (Y): ` M` → "modified", `A ` → "added,
 * staged", `MM` → "modified, staged; modified".
 */
function statusWords(xy: string): string {
  if (xy === '??') return 'untracked';
  if (xy.includes('U') || xy === 'AA' || xy === 'DD') return 'unmerged';
  const staged = STATUS_LETTERS[xy[0]!];
  const unstaged = STATUS_LETTERS[xy[1]!];
  return [staged && `${staged}, staged`, unstaged].filter(Boolean).join('; ') || xy.trim();
}
