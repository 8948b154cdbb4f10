import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditContext, Violation } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { privateTempDir } from '../../io/private-temp.js';
import { absPath } from '../evidence/fs-path.js';
import { changedSince, treePrint } from '../evidence/fingerprint.js';
import { readIndexFacts } from '../evidence/index-file.js';
import { nameSome, readHiddenPaths } from '../evidence/index-state.js';
import { measureTracked, measureUntracked, measureUntrackedYielding, untrackedReadLimit, type UntrackedMeasure, type UntrackedScan } from '../evidence/measure.js';
import { collectStaged, collectTracked, mergeStaged } from '../evidence/tracked.js';
import { ownReports } from '../evidence/own-reports.js';
import { verifierToolChanges } from '../evidence/verifier-tools.js';
import { collectUntracked, coveringGlob, listUntracked, overlaySnapshot, printEntry, REMOVED_ENTRY, type IgnoredChange, type IgnoredOverlay, type IgnoredSnapshot, type UntrackedPath } from '../evidence/untracked.js';
import { holdsIgnorePatterns, IgnoreOracle, NOTHING_IGNORED, type IgnoreAnswers } from '../git/ignore-oracle.js';
import { GITLINK_MODE, type DiffEntry } from '../git/parse.js';
import { resolveCommit, type RepoLocation } from '../git/repo.js';
import { git } from '../git/run-git.js';
import { BASELINE_TREE_KEY, createShadowGit, readGitRules, type ShadowGit } from '../git/shadow.js';
import { FILTER_ATTRIBUTES_KEY, filterAttributes } from '../git/filters.js';
import { displayPath, pathBytes } from '../path-text.js';
import { compilePathRules, isAttributesPath, refusalWhy, type Policy } from '../policy/policy.js';
import type { EnvelopeSnapshot } from '../state/schema.js';
import { failureReason, runVerifiers } from '../verify/run.js';
import type { VerifySpec } from '../verify/spec.js';
import { budgetViolations } from './budgets.js';
import { changeWords, findRenames, renamesByPath, statusOfLetter } from './file-status.js';
import type { AuditRecord, Metrics } from './record.js';
import { startAuditGit, type StartedGit } from './start-git.js';
import { mark } from '../../util/timeline.js';
import { haltIfInterrupted, onInterrupt } from '../../process/interrupt.js';
import { removeTree } from '../../io/remove-tree.js';

/** The part of the host's hook table an audit fires (`host.hooks`). */
export interface AuditHooks {
  readonly audit: { promise(context: AuditContext): Promise<void> };
}

/**
 * The hooks, or a function resolving them: commands pass one that loads the plugin host. The
 * audit calls it once, after its git commands have started, so plugins load while git works;
 * it awaits the result only when the `audit` hook fires.
 */
export type AuditHooksSource = AuditHooks | (() => Promise<AuditHooks>);

/** Inputs of {@link auditEnvelope}. */
export interface EnvelopeAuditInput {
  readonly loc: RepoLocation;
  readonly baseline: string;
  readonly policy: Policy;
  readonly verify: VerifySpec;
  readonly snapshot: EnvelopeSnapshot;
  /** HEAD's commit id, when the caller resolved it already (`check` does, while it loads the state). */
  readonly head?: Promise<string>;
  /** The diff and untracked listing, when the caller started them already (start-git.ts). */
  readonly started?: StartedGit;
  /** Fires `audit` so plugins can add violations (docs/ARCHITECTURE.md "The hook bus"). */
  readonly hooks?: AuditHooksSource;
  /** Run verifiers when the policy audit is clean (default true; `resume`'s preflight passes false). */
  readonly runVerifiers?: boolean;
  /** Environment for verifiers (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The envelope's last audit (`state.last_audit`): its `ignored_after_verifiers` are what ignored
   * entries are compared with, so output of verifiers cordon ran is not blamed on the agent.
   */
  readonly previous?: AuditRecord | null;
}

/**
 * Audits the work tree of an armed envelope against its baseline (the BEKO2210/SkillQuarry cordon):
 * tracked changes (work tree and index, commits since arming included), untracked files judged
 * by the arm-time ignore rules, ignored entries against the arm-time snapshot, submodule work
 * trees, index flags, then budgets, then the `audit` hook, then — only when nothing was
 * violated — the verifiers. Every git command reads the arm-time configuration through a
 * private git directory (git/shadow.ts), so the audit never runs anything a repository config
 * names. Throws `CORDON_REPO_ERROR` when git fails; a failing verifier is a violation.
 */
export async function auditEnvelope(input: EnvelopeAuditInput): Promise<AuditRecord> {
  const { loc, snapshot, policy } = input;
  // HEAD is resolved while the audit's git commands run: none of them reads HEAD (the diff names
  // the baseline), so the private git directory's HEAD is the baseline.
  const headCommit = input.head ?? resolveCommit(loc, 'HEAD');
  headCommit.catch(() => undefined);
  // The baseline diff is the longest git command: started first, then the untracked listing.
  // Changed tracked paths are sized (lstat) as git names them, while it still counts lines.
  const started = input.started ?? startAuditGit(loc, snapshot.git, input.baseline);
  const { shadow, trackedDiff, trackedSizes, listed } = started;
  let scratch: string | undefined;
  let releaseScratch: (() => void) | undefined;
  let oracle: IgnoreOracle | undefined;
  try {
    const rules = compilePathRules(policy);
    // With no arm-time ignore pattern at all, git would call every path not ignored: not asked.
    const ruleTexts = [snapshot.git.info_exclude, snapshot.git.excludes_file, ...Object.values(snapshot.ignored.gitignores)];
    const anyRules = holdsIgnorePatterns(ruleTexts);
    const armTimeOracle = async (): Promise<IgnoreAnswers> => {
      if (!anyRules) return NOTHING_IGNORED;
      if (scratch === undefined) {
        const dir = writeRuleTree(snapshot.ignored.gitignores);
        scratch = dir;
        releaseScratch = onInterrupt(() => removeTree(dir), 'files');
      }
      oracle ??= new IgnoreOracle(shadow.ignoring(scratch));
      return oracle;
    };
    // Untracked files are read and measured as soon as they are listed, while the diff still
    // runs (the same input assemble() would measure them with). Index flags come from the index
    // file as the private git directory holds it (linked or copied) when it can be read
    // directly, else from `git ls-files -v`.
    const overlay = verifierOverlay(input.previous);
    const ignoredBase = overlaySnapshot(snapshot.ignored, overlay);
    // Reports cordon wrote at the user's request are not the agent's (evidence/own-reports.ts).
    const own = ownReports(loc);
    const untrackedScan = collectUntracked({ root: loc.root, listed, oracle: armTimeOracle, snapshot: ignoredBase, rules, allowIgnored: policy.allow_ignored }).then(
      async (all) => {
        const listed = { ...all, untracked: all.untracked.filter((u) => !own(u.path)) };
        return { listed, scan: await measureUntrackedYielding(loc.root, sortUntracked(listed.untracked), untrackedReadLimit(policy.limits.max_working_bytes)) };
      },
    );
    // Plugins load once git is busy (finding and importing them is synchronous work).
    const hooks = startHooks(input.hooks);
    const hashBytes = snapshot.git.settings['extensions.objectformat'] === 'sha256' ? 32 : 20;
    const facts = readIndexFacts(join(shadow.dir, 'index'), hashBytes);
    // A change only in the index (staged, then the work tree restored) is invisible to the
    // work-tree diff; the index diff runs unless the index amounts to the baseline tree exactly.
    const armTree = snapshot.git.settings[BASELINE_TREE_KEY];
    const staged = facts?.tree !== undefined && facts.tree === armTree ? undefined : collectStaged(shadow.inv, input.baseline);
    staged?.catch(() => undefined);
    const [hidden, worktree, stagedChanges, { listed: found, scan }, head] = await Promise.all([
      facts ? Promise.resolve(facts.hidden) : readHiddenPaths(shadow.inv),
      trackedDiff,
      staged,
      untrackedScan,
      headCommit,
    ]);
    mark('git and scan done');
    const tracked = stagedChanges ? mergeStaged(worktree, stagedChanges) : worktree;
    // Submodules added after arming show in the diff as gitlinks (an unsupported change).
    const submoduleChanged: string[] = [];
    for (const path of Object.keys(snapshot.submodules)) {
      if ((treePrint(absPath(loc.root, path), path) ?? 'missing') !== snapshot.submodules[path]) submoduleChanged.push(path);
    }
    const early: Violation[] = [];
    if (hidden.length > 0) {
      early.push({
        code: 'index_flag_hidden',
        message: `paths hidden from the audit by git index flags set after arming: ${nameSome(hidden.map(displayPath))}; clear them with \`git update-index --no-assume-unchanged <path>\` and \`git update-index --no-skip-worktree <path>\``,
      });
    }
    if (head !== input.baseline && !policy.allow_commits) early.push({ code: 'head_changed', message: 'HEAD changed from the armed baseline; commits are not allowed (this envelope was armed without --allow-commits, the `cordon arm` and `cordon run` option that allows them)' });
    const notes = await filterFindings(shadow, snapshot, tracked, early);
    // Allowed ignored changes to what the verifiers run: reported, not violations (evidence/verifier-tools.ts).
    const tools = snapshot.ignored.verifier_tools;
    const allowedChanges = tools ? verifierToolChanges(loc.root, input.verify.commands, compilePathRules(policy).ignoredAllowed, tools) : undefined;
    if (allowedChanges?.length) {
      notes.push(
        `verifier executables changed under --allow-ignored since arming: ${nameSome(allowedChanges.map((c) => `${displayPath(c.path)} (${c.change})`))}; the allowed ignored globs let them change, so a verifier's verdict may not be its own (reinstall them, or arm again to trust them)`,
      );
    }
    return await assemble({
      mode: 'envelope',
      loc,
      baseline: input.baseline,
      head,
      policy,
      tracked,
      trackedBytes: (path) => trackedSizes.get(path) ?? measureTracked(loc.root, path),
      untracked: found.untracked,
      untrackedScan: scan,
      ignored: found.ignored,
      submoduleChanged,
      early,
      notes,
      ...(allowedChanges ? { allowedIgnored: allowedChanges } : {}),
      overlay,
      // What the verifiers did to ignored entries: listed again once they ran.
      afterVerifiers: async (sinceNs) => {
        const after = await collectUntracked({ root: loc.root, listed: listUntracked(shadow.inv), oracle: armTimeOracle, snapshot: ignoredBase, rules, allowIgnored: policy.allow_ignored });
        return verifierIgnored(loc.root, after.ignored, ignoredBase, policy, overlay, sinceNs);
      },
      hooks,
      runVerifiers: input.runVerifiers ?? true,
      verify: input.verify,
      env: input.env,
    });
  } finally {
    oracle?.close();
    releaseScratch?.();
    if (scratch) removeTree(scratch);
    started.stop();
  }
}

/** Inputs of {@link auditRange}. */
export interface RangeAuditInput {
  readonly loc: RepoLocation;
  /** Full commit ids. */
  readonly base: string;
  readonly head: string;
  readonly policy: Policy;
  readonly verify: VerifySpec;
  readonly hooks?: AuditHooksSource;
  readonly runVerifiers?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** Notes for the record (`AuditRecord.notes`): how the range's start was chosen (envelope/check.ts `checkRange`). */
  readonly notes?: string[];
}

/**
 * Audits the committed range `base..head` without an armed envelope (CI mode):
 * the tree diff only (no work tree, untracked or ignored paths, no index flags), sizes from the
 * `head` blobs. Verifiers run in the current work tree when the policy audit is clean; callers
 * make sure that tree is `head` (`checkRange` refuses otherwise: git/work-tree-at.ts).
 */
export async function auditRange(input: RangeAuditInput): Promise<AuditRecord> {
  const { loc } = input;
  const rules = await readGitRules(loc);
  const shadow: ShadowGit = createShadowGit(loc, rules, input.head);
  try {
    const tracked = await collectTracked(shadow.inv, input.base, input.head);
    const sizes = await blobSizes(shadow, [...tracked.values()]);
    return await assemble({
      mode: 'range',
      loc,
      baseline: input.base,
      head: input.head,
      policy: input.policy,
      tracked,
      trackedBytes: (path) => ({ bytes: sizes.get(path) ?? 0 }),
      untracked: [],
      ignored: [],
      submoduleChanged: [],
      early: [],
      ...(input.notes?.length ? { notes: [...input.notes] } : {}),
      hooks: startHooks(input.hooks),
      runVerifiers: input.runVerifiers ?? true,
      verify: input.verify,
      env: input.env,
    });
  } finally {
    shadow.dispose();
  }
}

interface Assembly {
  mode: AuditRecord['mode'];
  loc: RepoLocation;
  baseline: string;
  head: string;
  policy: Policy;
  tracked: Map<string, DiffEntry>;
  trackedBytes: (path: string) => { bytes: number; violation?: Violation };
  untracked: UntrackedPath[];
  /** {@link measureUntracked} of `untracked` in path-byte order, when already done. */
  untrackedScan?: UntrackedScan;
  ignored: IgnoredChange[];
  submoduleChanged: string[];
  early: Violation[];
  /** Notes for the record (see `AuditRecord.notes`). */
  notes?: string[];
  /** `AuditRecord.allowed_ignored_changes`, for envelopes that recorded verifier executables. */
  allowedIgnored?: IgnoredChange[];
  /** The previous check's `ignored_after_verifiers` (what ignored entries were compared with). */
  overlay?: IgnoredOverlay;
  /** Runs once the verifiers ran (`sinceNs`: when they started): the overlay to record and a note. */
  afterVerifiers?: (sinceNs: bigint) => Promise<{ overlay: IgnoredOverlay | undefined; note?: string }>;
  hooks?: Promise<AuditHooks>;
  runVerifiers: boolean;
  verify: VerifySpec;
  env?: NodeJS.ProcessEnv;
}

const byBytes = (a: string, b: string) => Buffer.compare(pathBytes(a), pathBytes(b));

/** Printable ASCII and the controls: one byte per UTF-16 unit, same value. */
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * `paths` sorted by their bytes. When every path is ASCII, byte order is the plain UTF-16 string
 * order, so the default sort serves; otherwise each path is converted to its bytes once.
 */
function sortByBytes(paths: Iterable<string>): string[] {
  const list = [...paths];
  let ascii = true;
  for (let i = 0; i < list.length && ascii; i++) ascii = ASCII_ONLY.test(list[i]!);
  if (ascii) return list.sort();
  return list
    .map((p) => ({ p, b: pathBytes(p) }))
    .sort((x, y) => Buffer.compare(x.b, y.b))
    .map((x) => x.p);
}

/** Untracked paths in the order assemble() visits them (path bytes), for {@link measureUntracked}. */
function sortUntracked(items: readonly UntrackedPath[]): UntrackedPath[] {
  const byPath = new Map(items.map((u) => [u.path, u]));
  return sortByBytes(byPath.keys()).map((p) => byPath.get(p)!);
}

/**
 * The git `--raw` status letter of each of `changed`, in its order, as one string (record.ts
 * `changed_file_status`): a tracked path's own letter, an untracked one `A`, a submodule whose
 * work tree changed `M`.
 */
function changedStatus(changed: readonly string[], tracked: ReadonlyMap<string, DiffEntry>, untracked: ReadonlyMap<string, UntrackedPath>): string {
  let out = '';
  for (let i = 0; i < changed.length; i++) {
    const letter = tracked.get(changed[i]!)?.status[0];
    out += letter !== undefined && 'ADMTU'.includes(letter) ? letter : letter !== undefined ? 'X' : untracked.has(changed[i]!) ? 'A' : 'M';
  }
  return out;
}

async function assemble(a: Assembly): Promise<AuditRecord> {
  const { policy } = a;
  const rules = compilePathRules(policy);
  // Plain indexed loops below: each runs once per changed path (6,250 in the 100,000-file bench,
  // after git's diff has ended, so every ms is the user's), in a process started with V8's
  // optimising compiler off (bin/run.cjs), where each step of a for-of allocates.
  const byPath = new Map<string, UntrackedPath>();
  for (let i = 0; i < a.untracked.length; i++) byPath.set(a.untracked[i]!.path, a.untracked[i]!);
  const all = new Set<string>(a.tracked.keys());
  byPath.forEach((_, path) => all.add(path));
  for (let i = 0; i < a.submoduleChanged.length; i++) all.add(a.submoduleChanged[i]!);
  const changed = sortByBytes(all);
  const status = changedStatus(changed, a.tracked, byPath);
  const scan = a.untrackedScan ?? measureUntracked(a.loc.root, changed.filter((p) => byPath.has(p)).map((p) => byPath.get(p)!), untrackedReadLimit(policy.limits.max_working_bytes));
  const renames = findRenames(a.tracked.values());
  const renameOf = renamesByPath(renames);

  const violations: Violation[] = [...a.early];
  const attributes: Violation[] = [];
  for (let i = 0; i < changed.length; i++) {
    const path = changed[i]!;
    const decision = rules.decide(path.endsWith('/') ? path.slice(0, -1) : path);
    if (!decision.allowed) {
      // How it changed (`deleted`, `renamed a -> b`) says what the user is looking at: a deleted path shows nowhere else.
      const how = changeWords(statusOfLetter(status[i]!), renameOf.get(path));
      violations.push({ code: 'path_outside_policy', message: `path outside policy: ${displayPath(path)} (${how === '' ? '' : `${how}; `}${refusalWhy(decision)})`, path });
    }
    if (isAttributesPath(path)) {
      attributes.push({ code: 'attributes_changed', message: `.gitattributes changed; attributes decide how git counts changes, so they cannot change ${a.mode === 'envelope' ? 'inside an envelope' : 'in the audited commits'}: ${displayPath(path)}`, path });
    }
  }
  violations.push(...attributes);
  const phrase = { new: 'ignored path appeared after arming', changed: 'ignored entry changed after arming', removed: 'ignored entry removed after arming' } as const;
  const since = { new: 'ignored path appeared after', changed: 'ignored entry changed after', removed: 'ignored entry removed after' } as const;
  const ignored = [...a.ignored].sort((x, y) => byBytes(x.path, y.path));
  for (const change of ignored) {
    const head = a.overlay?.[change.path] !== undefined ? `${since[change.change]} the previous check's verifiers left it` : phrase[change.change];
    violations.push({
      code: `ignored_${change.change}`,
      message: `${head} (not covered by --allow-ignored): ${displayPath(change.path)}; if it may change, arm with --allow-ignored '${coveringGlob([change.path])}'`,
      path: change.path,
    });
  }
  for (const path of a.submoduleChanged.sort(byBytes)) {
    violations.push({ code: 'submodule_changed', message: `changed path has unsupported file type (submodule work tree changed): ${displayPath(path)}`, path });
  }

  let added = 0;
  let deleted = 0;
  let binary = 0;
  const bytes = new Map<string, number>();
  const measureProblems: Violation[] = [];
  for (let i = 0; i < changed.length; i++) {
    const entry = a.tracked.get(changed[i]!);
    if (!entry) continue;
    if (entry.oldMode === GITLINK_MODE || entry.newMode === GITLINK_MODE) {
      measureProblems.push({ code: 'unsupported_file_type', message: `changed path has unsupported file type (submodule): ${displayPath(entry.path)}`, path: entry.path });
      continue;
    }
    if (entry.added === null || entry.deleted === null) binary += 1;
    else {
      added += entry.added;
      deleted += entry.deleted;
    }
    // Deleted paths are looked at too: one replaced by a directory is an unsupported change (the BEKO2210/SkillQuarry cordon).
    if (!byPath.has(entry.path)) {
      const m = a.trackedBytes(entry.path);
      bytes.set(entry.path, m.bytes);
      if (m.violation) measureProblems.push(m.violation);
      else if (entry.unreadable !== undefined) measureProblems.push({ code: 'file_unreadable', message: `cannot read changed file: ${displayPath(entry.path)}: ${entry.unreadable}`, path: entry.path });
    }
  }
  (scan.measures as Map<string, UntrackedMeasure>).forEach((m, path) => {
    added += m.lines;
    if (m.binary) binary += 1;
    bytes.set(path, m.bytes);
  });
  violations.push(...scan.violations, ...measureProblems);
  let workingBytes = 0;
  bytes.forEach((b) => (workingBytes += b));
  const metrics: Metrics = {
    files: changed.length,
    added_lines: added,
    deleted_lines: deleted,
    working_bytes: workingBytes,
    binary_files: binary,
  };
  for (const v of budgetViolations(metrics, policy.limits)) {
    // Reading stops at the working-byte budget (measure.ts): say what that left uncounted.
    const unread = v.code === 'max_working_bytes_exceeded' && scan.capExceeded;
    violations.push(unread ? { ...v, message: `${v.message} (the untracked files were not all read: their lines and binary files are not counted)` } : v);
  }

  if (a.hooks) {
    const hooks = await a.hooks;
    const context: AuditContext = { repoRoot: a.loc.root, baseline: a.baseline, changedPaths: changed, metrics: { ...metrics }, violations };
    await hooks.audit.promise(context);
    for (const v of violations) {
      if (typeof v?.code !== 'string' || typeof v?.message !== 'string') throw new CordonError(ERROR_CODES.PLUGIN_ERROR, `an audit tap pushed a violation without a string code and message: ${JSON.stringify(v)}`);
    }
  }

  const verifying = a.runVerifiers && violations.length === 0 && a.verify.commands.length > 0;
  // File times come from the kernel's coarse clock, which trails this one by up to a tick (1-10 ms
  // at HZ 1000-100): start a little earlier. Not a second earlier: files written just before the
  // check (an install right before `cordon check`) would be named as the verifiers' output.
  const sinceNs = BigInt(Date.now() - VERIFIER_CTIME_SLACK_MS) * 1_000_000n;
  const verification = verifying ? await runVerifiers(a.verify, { cwd: a.loc.root, env: a.env }) : [];
  // A verifier an interrupt ended is no failed verifier: the audit goes no further, and the
  // process ends by the signal (process/interrupt.ts).
  if (verifying) await haltIfInterrupted();
  // Verifiers usually dominate a check that runs them: a phase of their own in the timeline.
  if (verifying) mark('verifiers run');
  const after = verifying && a.afterVerifiers ? await a.afterVerifiers(sinceNs) : { overlay: a.overlay };
  const notes = [...(a.notes ?? []), ...(after.note ? [after.note] : [])];
  for (const result of verification) {
    if (!result.passed) violations.push({ code: 'verifier_failed', message: `verifier failed (${failureReason(result, a.verify)}): ${result.command}` });
  }
  return {
    passed: violations.length === 0,
    mode: a.mode,
    baseline: a.baseline,
    current_head: a.head,
    head_changed: a.head !== a.baseline,
    changed_files: changed,
    changed_file_status: status,
    ...(renames.length > 0 ? { shown_renames: renames } : {}),
    metrics,
    limits: policy.limits,
    violations,
    ignored_changes: ignored,
    ...(a.allowedIgnored ? { allowed_ignored_changes: a.allowedIgnored } : {}),
    verification,
    verification_skipped: !verifying && a.verify.commands.length > 0,
    ...(notes.length > 0 ? { notes } : {}),
    ...(after.overlay && Object.keys(after.overlay).length > 0 ? { ignored_after_verifiers: after.overlay } : {}),
  };
}

/** The previous record's overlay when it is a plain string map (the record is stored in `.cordon/`). */
function verifierOverlay(previous: AuditRecord | null | undefined): IgnoredOverlay | undefined {
  const overlay = previous?.ignored_after_verifiers as unknown;
  if (!overlay || typeof overlay !== 'object' || Array.isArray(overlay)) return undefined;
  return Object.values(overlay).every((v) => typeof v === 'string') ? (overlay as IgnoredOverlay) : undefined;
}

/** Paths named per changed entry, and entries named in a note, at most. */
const NAMED_CHANGES = 10;

/**
 * The overlay after this check's verifiers (`changes`: ignored entries that differ from `base`
 * once they ran): the previous `overlay` plus each changed entry's fingerprint now, and a note
 * naming the entries, the paths below them the verifiers wrote (by ctime since `sinceNs`) and
 * the `--allow-ignored` glob that would leave them out of every audit.
 */
/** How far before the verifiers' start a file's ctime may lie and still count as theirs, ms. */
const VERIFIER_CTIME_SLACK_MS = 20;

function verifierIgnored(root: string, changes: readonly IgnoredChange[], base: IgnoredSnapshot, policy: Policy, overlay: IgnoredOverlay | undefined, sinceNs: bigint): { overlay: IgnoredOverlay | undefined; note?: string } {
  if (changes.length === 0) return { overlay };
  const rules = compilePathRules(policy);
  const next: Record<string, string> = { ...overlay };
  const named: string[] = [];
  const written: string[] = [];
  for (const change of [...changes].sort((x, y) => byBytes(x.path, y.path))) {
    const print = printEntry(root, change.path, rules, policy.allow_ignored);
    if (print === null) {
      if (base.entries[change.path] !== undefined) next[change.path] = REMOVED_ENTRY;
      else delete next[change.path];
    } else next[change.path] = print;
    const below = change.change === 'removed' ? [] : changedSince(absPath(root, change.path), change.path, sinceNs, NAMED_CHANGES);
    // Files written below an ignored directory: their directories (a cache rewrites new names).
    written.push(...(below.length > 0 && change.path.endsWith('/') ? below.map((p) => `${p.slice(0, p.lastIndexOf('/'))}/`) : [change.path]));
    named.push(below.length > 0 && change.path.endsWith('/') ? `${displayPath(change.path)} (${nameSome(below.map(displayPath))})` : displayPath(change.path));
  }
  const shown = named.length > NAMED_CHANGES ? `${named.slice(0, NAMED_CHANGES).join(', ')} (+${named.length - NAMED_CHANGES} more)` : named.join(', ');
  const note = `the verifiers changed ignored paths: ${shown}; later checks compare them with what the verifiers left, so this is not held against the agent (to leave them out of every audit, arm with --allow-ignored '${coveringGlob(written)}')`;
  return { overlay: next, note };
}

/**
 * What the audit says about clean/smudge filters (git/filters.ts): an arm-time
 * driver whose program or named files changed since arming is not run and is a violation
 * (pushed onto `violations`); one whose program was missing at arm, and changed paths whose
 * `filter` attribute names a driver the audit does not run, get a note. Returns the notes.
 */
async function filterFindings(shadow: ShadowGit, snapshot: EnvelopeSnapshot, tracked: ReadonlyMap<string, DiffEntry>, violations: Violation[]): Promise<string[]> {
  const notes: string[] = [];
  const left = new Set<string>();
  for (const p of shadow.filters.problems) {
    left.add(p.driver);
    if (p.kind === 'changed') {
      violations.push({ code: 'filter_driver_changed', message: `filter driver '${p.driver}' is not run by the audit: ${p.reason}; files it filters are compared as raw bytes (arm again to use the driver as it is now)` });
    } else notes.push(`filter driver '${p.driver}' is not run by the audit: ${p.reason}; git cannot run it either, so files it filters are compared as raw bytes`);
  }
  if (snapshot.git.settings[FILTER_ATTRIBUTES_KEY] !== 'true' || tracked.size === 0) return notes;
  const usable = new Set(shadow.filters.usable);
  const missing = new Map<string, string[]>();
  for (const [path, driver] of await filterAttributes(shadow.inv, [...tracked.keys()])) {
    if (usable.has(driver) || left.has(driver)) continue;
    missing.set(driver, [...(missing.get(driver) ?? []), path]);
  }
  for (const [driver, paths] of missing) {
    notes.push(`${nameSome(paths.map(displayPath))}: filter '${driver}' was not configured when the envelope was armed, so the audit compares these files as raw bytes (a driver configured after arming never runs in an audit; configure it, then arm again)`);
  }
  return notes;
}

/**
 * Starts resolving the hooks (calling the loader once, if `source` is one). The promise's
 * rejection is handled here and surfaces again where assemble() awaits it.
 */
function startHooks(source: AuditHooksSource | undefined): Promise<AuditHooks> | undefined {
  if (!source) return undefined;
  const hooks = typeof source === 'function' ? Promise.resolve().then(source) : Promise.resolve(source);
  hooks.catch(() => undefined);
  return hooks;
}

/** Writes the arm-time `.gitignore` files into a scratch tree for the arm-time {@link IgnoreOracle}. */
function writeRuleTree(gitignores: Readonly<Record<string, string>>): string {
  const dir = privateTempDir('cordon-rules-');
  for (const [path, content] of Object.entries(gitignores)) {
    const file = Buffer.concat([Buffer.from(dir), Buffer.from('/'), pathBytes(path)]);
    mkdirSync(parentOf(file), { recursive: true });
    writeFileSync(file, pathBytes(content));
  }
  return dir;
}

function parentOf(file: Buffer): Buffer {
  return file.subarray(0, file.lastIndexOf(0x2f));
}

/** Sizes (bytes) of the new-side blobs of `entries` (`git cat-file --batch-check`). */
async function blobSizes(shadow: ShadowGit, entries: readonly DiffEntry[]): Promise<Map<string, number>> {
  const wanted = entries.filter((e) => e.newMode !== '000000' && e.newMode !== GITLINK_MODE && !/^0+$/.test(e.newId));
  const sizes = new Map<string, number>();
  if (wanted.length === 0) return sizes;
  const input = wanted.map((e) => `${e.newId}\n`).join('');
  const { stdout } = await git(shadow.inv, ['cat-file', '--batch-check=%(objectsize)'], { input });
  const lines = stdout.toString('latin1').split('\n');
  wanted.forEach((e, i) => {
    const n = Number(lines[i]);
    if (!Number.isSafeInteger(n)) throw new CordonError(ERROR_CODES.REPO_ERROR, `git cat-file gave no size for ${e.path}: ${JSON.stringify(lines[i])}`);
    sizes.set(e.path, n);
  });
  return sizes;
}
