import { auditEnvelope, auditRange, type AuditHooksSource } from './audit/run-audit.js';
import { startEarly, type EarlyStart } from './audit/start-git.js';
import type { AuditRecord } from './audit/record.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { discoverRepoAndHead, discoverRepoOf, repoOptions, mergeBase, resolveCommit, type RepoLocation } from './git/repo.js';
import { locateDirect } from './git/locate-direct.js';
import { git } from './git/run-git.js';
import { baseGitEnv } from './git/repo.js';
import { createShadowGit, readGitRules } from './git/shadow.js';
import { workTreeMismatch } from './git/work-tree-at.js';
import { acquireLock, type LockHandle } from './lock.js';
import { phaseAfterCheck } from './phases.js';
import { parsePolicyFile, policyFileText, POLICY_FILE, resolveSettings, type SettingsInput } from './settings.js';
import type { EnvelopeState } from './state/schema.js';
import { envelopePaths, loadEnvelope, saveAuditAndState } from './state/store.js';
import { finishInterrupted } from './state/recover.js';
import { currentReadAhead, readEnvelopeAhead, type EnvelopeReadAhead } from './state/read-ahead.js';
import { refuseWhileAgentRuns } from './attempt/stale.js';
import { mark } from '../util/timeline.js';
import { policyGlobWarnings } from './policy/glob-warnings.js';
import { displayPath } from './path-text.js';

/** Options of {@link check}. */
export interface CheckOptions {
  /** Any path inside the work tree (default: cwd). */
  readonly repo?: string;
  /** The host's hooks, so `audit` taps can add violations. */
  readonly hooks?: AuditHooksSource;
  /** A lock the caller already holds. */
  readonly lock?: LockHandle;
  /** Environment for verifiers (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Called once while git locates the repository (`git rev-parse`, which the check waits for):
   * work the caller can start then, such as loading the plugins `hooks` will return.
   */
  readonly whileLocating?: () => void;
}

/** What {@link check} returns. */
export interface CheckResult {
  readonly audit: AuditRecord;
  /** The state as persisted after the check. */
  readonly state: EnvelopeState;
}

/**
 * `cordon check` on an armed envelope (the BEKO2210/SkillQuarry cordon): under the lock, finishes what a killed
 * cordon left half done, loads and validates the state, refuses while the agent of a killed
 * `cordon run` still runs, audits, and persists phase `accepted`/`rejected`, `last_audit` and
 * `audit.json`. Throws `CordonError` (exit 2) for refusals, `CORDON_STATE_WRITE` when the verdict
 * cannot be saved; a rejection is a result (`audit.passed` false).
 */
export async function check(options: CheckOptions = {}): Promise<CheckResult> {
  const dir = options.repo ?? process.cwd();
  // The diff and the untracked listing start now, on a guess checked before they are used.
  const early = startEarly(dir);
  mark('git started');
  try {
    // The common layout is read from its files; for any other git locates the repository,
    // and the wait goes to work whose inputs are checked afterwards.
    const direct = early ? locateDirect(dir) : undefined;
    const located = direct ? Promise.resolve(direct) : discoverRepoAndHead(dir, repoOptions(options.repo));
    located.catch(() => undefined);
    options.whileLocating?.();
    const ahead = early ? readEnvelopeAhead(early.loc) : undefined;
    const { loc, head } = await located;
    mark('repo located');
    const lock = options.lock ?? acquireLock(loc.lockFile, 'check');
    mark('locked');
    try {
      return await checkLocked(loc, { ...options, early, head, ahead });
    } finally {
      if (!options.lock) lock.release();
    }
  } finally {
    early?.discard();
  }
}

/** {@link check} for a caller that holds the lock and has located the repository. */
export async function checkLocked(
  loc: RepoLocation,
  options: Pick<CheckOptions, 'hooks' | 'env'> & { readonly early?: EarlyStart; readonly head?: string; readonly ahead?: EnvelopeReadAhead } = {},
): Promise<CheckResult> {
  // HEAD as discovery found it; otherwise git resolves it while the state is read and validated
  // (a refused state still wins over an unresolvable HEAD).
  const head = options.head !== undefined ? Promise.resolve(options.head) : resolveCommit(loc, 'HEAD');
  head.catch(() => undefined);
  await finishInterrupted(loc);
  // Read before the lock was taken, and still exactly what a read now would give: kept.
  const envelope = currentReadAhead(options.ahead, loc) ?? loadEnvelope(loc);
  refuseWhileAgentRuns(envelope.state);
  mark('envelope read');
  const { config } = envelope;
  const started = options.early?.adopt(loc, config.baseline, envelope.snapshot.git);
  const audit = await auditEnvelope({ loc, baseline: config.baseline, policy: config.policy, verify: config.verify, snapshot: envelope.snapshot, head, started, hooks: options.hooks, env: options.env, previous: envelope.state.last_audit });
  mark('audited');
  const state = persistVerdict(loc, audit, () =>
    saveAuditAndState(loc.root, audit, {
      ...envelope.state,
      phase: phaseAfterCheck(audit.passed),
      last_audit: audit,
      last_error: audit.passed ? null : audit.violations.map((v) => v.message).join('; '),
    }),
  );
  mark('verdict saved');
  return { audit, state };
}

/**
 * Runs `save` (the writes that persist a verdict) and turns any error of it into
 * `CORDON_STATE_WRITE` (exit 2): the message names the state directory, the
 * verdict that could not be saved and the system error. The audit (and its verifiers) already ran
 * and is not run again; `details.audit` holds it.
 */
export function persistVerdict<T>(loc: Pick<RepoLocation, 'root'>, audit: AuditRecord, save: () => T): T {
  try {
    return save();
  } catch (error) {
    const dir = envelopePaths(loc.root).dir;
    const verdict = audit.passed ? 'accepted' : `rejected (${audit.violations.length} violation${audit.violations.length === 1 ? '' : 's'})`;
    const why = (error as Error).message;
    throw new CordonError(
      ERROR_CODES.STATE_WRITE,
      `the audit ran (verdict: ${verdict}) but cordon could not save it in ${dir}: ${why}. The envelope keeps its previous state; make ${dir} writable (or free space) and run \`cordon check\` again`,
      { cause: error, details: { dir, verdict: audit.passed ? 'accepted' : 'rejected', audit } },
    );
  }
}

/** Options of {@link checkRange}. */
export interface RangeOptions {
  readonly repo?: string;
  /** Base revision (branch, tag, commit). */
  readonly base: string;
  /** Head revision (default `HEAD`). */
  readonly head?: string;
  /** Settings from flags; they override `.cordon.json` from the base commit. */
  readonly flags?: SettingsInput;
  readonly hooks?: AuditHooksSource;
  readonly env?: NodeJS.ProcessEnv;
  /** Prints one warning line (a glob that is most likely not what was meant: policy/glob-warnings.ts). */
  readonly warn?: (line: string) => void;
}

/**
 * Refuses an empty or blank revision flag (`--base ""`: `CORDON_BAD_INPUT`, exit 2, the value
 * JSON-quoted as every refused flag value is), as a CI script's unset variable gives it
 * (`--base "$BASE_SHA"`): git's own words for it (`Needed a single revision`) name no input.
 */
export function requireRevision(flag: '--base' | '--head', value: string): void {
  if (value.trim() !== '') return;
  throw new CordonError(
    ERROR_CODES.BAD_INPUT,
    `${flag} ${JSON.stringify(value)}: a revision cannot be empty; name a commit, branch or tag (\`cordon check --base origin/main\`), or leave ${flag} out${flag === '--base' ? ' to check the armed envelope' : ' for HEAD'}`,
    { details: { flag, value } },
  );
}

/**
 * `cordon check --base REF [--head REF]` (CI mode): audits the committed range without
 * arming. The policy is `.cordon.json` as it is in the *base* commit (so a change cannot loosen
 * its own audit), overridden by `flags`. No state is read or written. Verifiers run in the work
 * tree, so when there are any the work tree must be exactly `head` (HEAD at it, no tracked
 * change, no untracked file that is not ignored), else `CORDON_REPO_ERROR` (exit 2): the
 * verdict would be about a different tree than the one audited.
 */
export async function checkRange(options: RangeOptions): Promise<AuditRecord> {
  requireRevision('--base', options.base);
  if (options.head !== undefined) requireRevision('--head', options.head);
  const loc = await discoverRepoOf(options.repo);
  const base = await resolveCommit(loc, options.base, `--base ${options.base}`);
  const head = await resolveCommit(loc, options.head ?? 'HEAD', `--head ${options.head ?? 'HEAD'}`);
  const file = await policyFileAt(loc, base);
  // No allow glob from either: say where the policy was looked for, not arm's generic words.
  if (!file?.allow?.length && !options.flags?.allow?.length) throw noBasePolicy(options.base, base, file !== undefined);
  const settings = resolveSettings(file, options.flags);
  for (const warning of policyGlobWarnings(settings.policy, loc.root, displayPath)) options.warn?.(warning);
  if (settings.verify.commands.length > 0) {
    const headName = options.head ?? 'HEAD';
    const reason = await headMismatch(loc, head);
    if (reason) {
      // Verifiers from the flags can be left out; those of the base's policy file cannot (a change
      // must not be able to skip its own checks), so only checking out the head is offered then.
      const instead = options.flags?.verify?.length ? ', or drop --verify' : ` (the verifiers come from ${POLICY_FILE} in the base commit and always run)`;
      throw new CordonError(
        ERROR_CODES.REPO_ERROR,
        `verifiers run in the work tree, which is not the audited head ${headName}: ${reason}; check out ${headName} with a clean work tree (commit, stash or remove the changes)${instead}`,
        { details: { head, reason } },
      );
    }
  }
  // What head changes since it forked from base, as `git log base..head` and a pull request's diff
  // read a range: a base that moved on after the fork would otherwise have its own later changes
  // blamed on head. When base is an ancestor of head (a merge commit's first parent, a branch up
  // to date) the fork point is base itself.
  const from = await mergeBase(loc, base, head);
  const notes: string[] = [];
  if (from === undefined) {
    notes.push(`--base ${options.base} and ${options.head ?? 'HEAD'} have no common ancestor in this clone (unrelated histories, or a shallow fetch that stops before they meet): their trees were compared directly`);
  } else if (from !== base) {
    notes.push(`audited from ${from.slice(0, 12)}, where ${options.head ?? 'HEAD'} forked from --base ${options.base} (${base.slice(0, 12)}): changes made on the base since are not this range's`);
  }
  return auditRange({ loc, base: from ?? base, head, policy: settings.policy, verify: settings.verify, hooks: options.hooks, env: options.env, notes });
}

/**
 * The refusal of `check --base` when the range has no allow glob (`CORDON_BAD_INPUT`, exit 2):
 * the policy comes from `.cordon.json` in the base commit (`ref`, resolved to `commit`), which
 * has none (`hasFile` false) or one without `allow`, and no `--allow` was given. The work tree's
 * `.cordon.json` is not read, so a change cannot loosen its own audit: the message says so, and
 * how to give the policy instead.
 */
function noBasePolicy(ref: string, commit: string, hasFile: boolean): CordonError {
  const where = `the base commit ${ref} (${commit.slice(0, 12)})`;
  const missing = hasFile ? `${POLICY_FILE} in ${where} has no \`allow\`` : `${where} has no ${POLICY_FILE}`;
  return new CordonError(
    ERROR_CODES.BAD_INPUT,
    `${missing}, and \`check --base\` takes its policy from the base commit, never from the work tree or a later commit (a change cannot loosen its own audit). Give the policy as flags: \`cordon check --base ${ref} --allow 'src/**'\` (with --deny, --max-files… as needed), or use a base that holds ${POLICY_FILE} with \`allow\``,
    { details: { base: ref, commit, policy_file: hasFile } },
  );
}

/**
 * Why the work tree is not exactly `head` (see {@link workTreeMismatch}), read through a shadow
 * git directory so no repository config (fsmonitor, filters) runs; undefined when it is.
 */
async function headMismatch(loc: RepoLocation, head: string): Promise<string | undefined> {
  const shadow = createShadowGit(loc, await readGitRules(loc), head);
  try {
    return await workTreeMismatch(loc, shadow.inv, head);
  } finally {
    shadow.dispose();
  }
}

/** Parses `.cordon.json` as stored in `commit`, or undefined when the commit has none. */
export async function policyFileAt(loc: RepoLocation, commit: string): Promise<SettingsInput | undefined> {
  const inv = { cwd: loc.root, env: baseGitEnv(), gitBinary: loc.gitBinary };
  const { stdout: listed } = await git(inv, ['ls-tree', '-z', '--full-tree', commit, '--', POLICY_FILE]);
  if (listed.length === 0) return undefined;
  const source = `${POLICY_FILE} in ${commit.slice(0, 12)}`;
  if (!/^100(644|755) blob /.test(listed.toString('latin1'))) throw new CordonError(ERROR_CODES.BAD_INPUT, `${source} is not a regular file`);
  const { stdout } = await git(inv, ['cat-file', 'blob', `${commit}:${POLICY_FILE}`]);
  return parsePolicyFile(policyFileText(stdout, source), source);
}
