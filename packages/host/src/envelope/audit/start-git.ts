import { existsSync, statSync } from 'node:fs';
import { realPath } from '../../io/real-path.js';
import { join } from 'node:path';
import { measureTracked } from '../evidence/measure.js';
import { collectTracked } from '../evidence/tracked.js';
import { listUntracked } from '../evidence/untracked.js';
import type { DiffEntry } from '../git/parse.js';
import { OBJECT_ID, type RepoLocation } from '../git/repo.js';
import { createShadowGit, type GitRules, type ShadowGit } from '../git/shadow.js';
import { signalGroup, type ManagedChild } from '../process.js';
import { canonicalJson } from '../state/canonical-json.js';
import { envelopePaths, readJson } from '../state/store.js';

/**
 * The two long git commands of an envelope audit, running: the diff against the baseline and
 * the untracked listing, both through one private git directory (git/shadow.ts).
 */
export interface StartedGit {
  readonly shadow: ShadowGit;
  /** The tracked changes once the diff has finished (collectTracked). */
  readonly trackedDiff: Promise<Map<string, DiffEntry>>;
  /** Current size of each changed tracked path, measured as the diff names it. */
  readonly trackedSizes: Map<string, ReturnType<typeof measureTracked>>;
  /** Every untracked path, no ignore rules applied (listUntracked). */
  readonly listed: Promise<string[]>;
  /** Stops both commands (their promises then reject) and removes the private directory. */
  stop(): void;
}

/**
 * Starts the audit's diff and untracked listing for the envelope at `loc` (armed at `baseline`
 * with the arm-time git `rules`). The diff is started first: it is the longest command.
 * Throws `CORDON_REPO_ERROR` when the private git directory cannot be made.
 */
export function startAuditGit(loc: RepoLocation, rules: GitRules, baseline: string): StartedGit {
  const shadow = createShadowGit(loc, rules, baseline);
  const children: ManagedChild[] = [];
  const onSpawn = (child: ManagedChild) => children.push(child);
  const trackedSizes = new Map<string, ReturnType<typeof measureTracked>>();
  const sizing = new BatchedWork<string>((path) => trackedSizes.set(path, measureTracked(loc.root, path)));
  const trackedDiff = collectTracked(shadow.inv, baseline, undefined, (path) => sizing.add(path), { onSpawn });
  const listed = listUntracked(shadow.inv, { onSpawn });
  return {
    shadow,
    trackedDiff,
    trackedSizes,
    listed,
    stop() {
      sizing.cancel();
      // Only a running command is signalled: an exited one's group id may belong to another.
      for (const child of children) if (child.exitCode === null && child.signalCode === null) signalGroup(child, 'SIGTERM');
      shadow.dispose();
    },
  };
}

/** Items {@link BatchedWork} handles between two turns of the event loop. */
const ITEMS_PER_TURN = 64;

/**
 * Items {@link BatchedWork} handles at once, in the caller's callback, before it starts
 * batching: a diff this small never keeps git waiting, and a check of a few files then sets no
 * `setImmediate`, whose first use costs Node's immediate queue compiled from source (`npm run
 * bench:envelope`).
 */
const ITEMS_AT_ONCE = 64;

/**
 * Runs `work` on each added item after the first {@link ITEMS_AT_ONCE} a few dozen at a time,
 * one batch per turn of the event loop, instead of inside the caller's callback. The diff's
 * paths arrive in its stdout handler: sizing them there (an `lstat` each) would leave the pipe
 * full and git waiting on it for the whole raw section: on the 100,000-file bench git ended
 * about 15 ms later that way (`npm run bench:envelope`). Items not yet handled when the caller needs them are the
 * caller's to handle (see `trackedBytes` in run-audit.ts).
 */
class BatchedWork<T> {
  readonly #queue: T[] = [];
  #next = 0;
  #scheduled: NodeJS.Immediate | undefined;
  #atOnce = ITEMS_AT_ONCE;

  constructor(private readonly work: (item: T) => void) {}

  add(item: T): void {
    if (this.#atOnce > 0) {
      this.#atOnce--;
      this.work(item);
      return;
    }
    this.#queue.push(item);
    this.#scheduled ??= setImmediate(() => this.#drain());
  }

  /** Drops what is still queued. */
  cancel(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    this.#queue.length = 0;
    this.#next = 0;
  }

  #drain(): void {
    this.#scheduled = undefined;
    const end = Math.min(this.#queue.length, this.#next + ITEMS_PER_TURN);
    while (this.#next < end) this.work(this.#queue[this.#next++]!);
    if (this.#next < this.#queue.length) this.#scheduled = setImmediate(() => this.#drain());
    else {
      this.#queue.length = 0;
      this.#next = 0;
    }
  }
}

/** Audit git commands started before the envelope could be read under the lock ({@link startEarly}). */
export interface EarlyStart {
  /** The location guessed from `.cordon/config.json`, which git has not confirmed yet. */
  readonly loc: RepoLocation;
  /**
   * The started commands when they were started exactly as the audit of this envelope would
   * start them: same repository layout as `loc` (located by git), same `baseline` and arm-time
   * `rules` as the validated envelope. Otherwise they are stopped and `undefined` is returned.
   */
  adopt(loc: RepoLocation, baseline: string, rules: GitRules): StartedGit | undefined;
  /** Stops the commands unless they were adopted (safe to call more than once). */
  discard(): void;
}

/**
 * Starts the audit's git commands optimistically for a check run from `dir`, before git has
 * located the repository and before the envelope is locked, read and validated: on a large
 * repository the diff then runs while Node finishes starting up (`npm run bench:envelope`).
 *
 * Only the common case is guessed: `dir` is the work-tree root, `.cordon/config.json` there
 * names that root, and its git directory is an ordinary one (not a linked work tree's). The
 * guess costs nothing when wrong: {@link EarlyStart.adopt} compares every input the commands
 * were started with against what the audit has validated, and anything short of equal stops
 * them. The unvalidated files only ever feed git through the private git directory, whose
 * configuration cordon writes itself, so no guess can make git run a program. Returns
 * `undefined` (nothing started) when the guess cannot be made; never throws.
 */
export function startEarly(dir: string): EarlyStart | undefined {
  let started: StartedGit;
  let guess: { loc: RepoLocation; baseline: string; rules: string };
  try {
    const root = realPath(dir);
    const paths = envelopePaths(root);
    const config = readJson(paths.config, 'config') as { baseline?: unknown; repo?: { root?: unknown; git_dir?: unknown } };
    const gitDir = config.repo?.git_dir;
    const baseline = config.baseline;
    if (config.repo?.root !== root || typeof gitDir !== 'string' || typeof baseline !== 'string' || !OBJECT_ID.test(baseline)) return undefined;
    if (!statSync(gitDir).isDirectory() || existsSync(join(gitDir, 'commondir'))) return undefined;
    const rules = (readJson(paths.snapshot, 'snapshot') as { git?: GitRules } | null)?.git;
    if (!rules || typeof rules !== 'object') return undefined;
    const loc: RepoLocation = {
      root,
      gitDir,
      commonDir: gitDir,
      objectsDir: realPath(join(gitDir, 'objects')),
      indexFile: join(gitDir, 'index'),
      excludeFile: join(gitDir, 'info', 'exclude'),
      attributesFile: join(gitDir, 'info', 'attributes'),
      lockFile: join(gitDir, 'cordon.lock'),
      gitBinary: 'git',
    };
    started = startAuditGit(loc, rules, baseline);
    guess = { loc, baseline, rules: canonicalJson(rules) };
  } catch {
    return undefined;
  }
  started.trackedDiff.catch(() => undefined);
  started.listed.catch(() => undefined);
  let settled = false;
  return {
    loc: guess.loc,
    adopt(loc, baseline, rules) {
      if (settled) return undefined;
      settled = true;
      const same =
        loc.root === guess.loc.root &&
        loc.gitDir === guess.loc.gitDir &&
        loc.commonDir === guess.loc.commonDir &&
        loc.objectsDir === guess.loc.objectsDir &&
        loc.indexFile === guess.loc.indexFile &&
        loc.gitBinary === guess.loc.gitBinary &&
        baseline === guess.baseline &&
        canonicalJson(rules) === guess.rules;
      if (same) return started;
      started.stop();
      return undefined;
    },
    discard() {
      if (settled) return;
      settled = true;
      started.stop();
    },
  };
}
