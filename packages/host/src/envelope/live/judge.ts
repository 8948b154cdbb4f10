import { lstatSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { cutTextMiddle, type WriteTarget } from '@cordon/plugin-api';
import { isInside } from '../../io/safe-read.js';
import { displayPath } from '../path-text.js';
import { CORDON_DIR } from '../state/dir-name.js';
import { isAttributesPath, refusalWhy, type PathRules } from '../policy/policy.js';
import { MAX_PATH_BYTES, resolveWrite, writeSpellings } from './resolve.js';

/**
 * Which rule refused a write: `outside-repository` (the path is not in the work tree),
 * `symlink-escape` (it is, but a symbolic link on the way leads out, or links loop),
 * `state-dir` (inside `.cordon/`), `git-dir` (a `.git` component: git's own directory, which
 * `check` cannot see), `attributes` (a `.gitattributes`, which `check` never lets change),
 * `policy` (outside every `--allow`, or under a `--deny`), `too-long` (longer than any path the
 * system accepts, so no write could happen there).
 */
export type LiveRule = 'outside-repository' | 'symlink-escape' | 'state-dir' | 'git-dir' | 'attributes' | 'policy' | 'too-long';

// Longest path, in bytes, the live envelope judges (Linux's `PATH_MAX`): a target spelt longer is
// refused at once, which spares walking a path of a million components (a tool that shortens it
// by normalising it first would still write somewhere, so letting it through is no option).
export { MAX_PATH_BYTES } from './resolve.js';

/** Longest form of an agent-written path shown in a refusal, in characters (the middle is left out). */
export const SHOWN_PATH_CHARS = 300;

/** An agent-written path as a refusal shows it: escaped (`displayPath`) and cut to {@link SHOWN_PATH_CHARS}. */
export function shownPath(text: string): string {
  return cutTextMiddle(displayPath(text), SHOWN_PATH_CHARS, '…');
}

/** How the live envelope judged one write target. */
export type WriteJudgement =
  | { readonly allowed: true; readonly target: string; readonly path: string }
  | { readonly allowed: false; readonly target: string; readonly rule: LiveRule; readonly why: string; readonly path?: string };

/** What {@link judgeWrite} judges against. */
export interface JudgeContext {
  /** Work-tree root (absolute, links resolved: `git rev-parse --show-toplevel`). */
  readonly root: string;
  /** The call's working directory, links resolved, which a relative target is resolved against. */
  readonly cwd: string;
  /**
   * The working directory as the agent reported it (links unresolved), when known: a relative
   * target's lexical normal form is also taken from it, as an agent that normalises writes it
   * ({@link writeSpellings}).
   */
  readonly namedCwd?: string;
  /** The armed policy's compiled path rules (`compilePathRules`, as `check` compiles them). */
  readonly rules: PathRules;
}

/**
 * Judges one file a tool call is about to write, as `check` would judge the change it makes
 * (docs/envelopes.md "The live envelope"): the target is resolved like the kernel resolves it
 * (`resolveWrite`: every link on the way followed), and the repo-relative path it lands on, with
 * `/` separators, goes through the policy's own `decide` and `check`'s `.gitattributes` rule.
 * Where the target's lexical normal form (its `..` taken off before any link is read) lands
 * elsewhere, that is judged too, and the write refused when either is ({@link writeSpellings}:
 * Gemini CLI and Codex normalise the path they write).
 * Refused before that: a target longer than {@link MAX_PATH_BYTES}, one outside the work tree,
 * one that a symbolic link leads out of it (or whose links loop), one inside `.cordon/` and one
 * with a `.git` component (git never tracks such a path, so `check` cannot see the write; the top
 * level's `.cordon` and `.git` are recognised in any spelling the file system takes for them).
 * A path an `--allow-ignored` glob matches is allowed: `check` accepts it when git ignores it,
 * which needs git to tell. `path` is the repo-relative path judged. A write in place: the same as
 * {@link judgeChange} of kind `write`.
 */
export function judgeWrite(target: string, context: JudgeContext): WriteJudgement {
  return judgeChange({ path: target, kind: 'write' }, context);
}

/**
 * Judges one path a tool call changes, by what the change does to a symbolic link that is the
 * path's last component (`WriteKind`; links among its parent directories are always followed):
 * `write` judges where the link leads (the file written through it, {@link judgeWrite}),
 * `remove` the link's own path (`unlink(2)`/`rename(2)` change the link itself, as `check` then
 * sees the link deleted or replaced), `replace` both, refused when either is. A path whose last
 * component is no link is judged once, the same for every kind.
 */
export function judgeChange(change: WriteTarget, context: JudgeContext): WriteJudgement {
  const target = change.path;
  const absolute = isAbsolute(target) ? target : `${context.cwd}/${target}`;
  if (Buffer.byteLength(absolute) >= MAX_PATH_BYTES) return { allowed: false, target, rule: 'too-long', why: `it is longer than any path the system accepts (${MAX_PATH_BYTES} bytes)` };
  // The name as spelt first (its judgement is the one answered when all allow), then its normal
  // form. Of the refusals, one that names a path in the repository tells the model most.
  let allowed: WriteJudgement | undefined;
  let refused: WriteJudgement | undefined;
  for (const spelling of writeSpellings(target, context.cwd, context.namedCwd)) {
    const entry = judgeResolved(target, spelling, context, change.kind === 'write');
    const judgements = [entry.judgement];
    if (change.kind === 'replace' && entry.judgement.allowed && entry.lastIsLink) judgements.push(judgeResolved(target, spelling, context, true).judgement);
    for (const judgement of judgements) {
      if (judgement.allowed) allowed ??= judgement;
      else if (refused === undefined || (refused.path === undefined && judgement.path !== undefined)) refused = judgement;
    }
    if (refused?.path !== undefined) return refused;
  }
  return refused ?? allowed!;
}

/** How the absolute `spelling` of `target` lands (`resolveWrite`, the last component followed or not) and is judged, and whether that component was a link. */
function judgeResolved(target: string, spelling: string, context: JudgeContext, followLast: boolean): { readonly judgement: WriteJudgement; readonly lastIsLink?: boolean } {
  const judgement = (j: WriteJudgement, lastIsLink?: boolean) => ({ judgement: j, lastIsLink });
  const { root } = context;
  const named = resolve(spelling);
  // Unnormalised: a `..` after a link goes up from where the link leads, as in the kernel.
  const landed = resolveWrite(spelling, { followLast });
  const namedInside = isInside(root, named);
  if (landed.loop) return judgement({ allowed: false, target, rule: 'symlink-escape', why: 'its symbolic links loop' });
  if (!isInside(root, landed.path)) {
    return judgement(
      namedInside
        ? { allowed: false, target, rule: 'symlink-escape', why: `a symbolic link on its way leads out of the repository, to ${shownPath(landed.path)}` }
        : { allowed: false, target, rule: 'outside-repository', why: `it is outside the repository ${displayPath(root)}` },
    );
  }
  return judgement(judgeRepoPath(target, relative(root, landed.path).split(sep).join('/'), context), landed.lastIsLink);
}

/** The policy's verdict on `path` (repo-relative, `/` separators), where `target` landed. */
function judgeRepoPath(target: string, path: string, context: JudgeContext): WriteJudgement {
  const { root } = context;
  const parts = path.split('/');
  const top = stateDirOf(root, parts[0]!);
  if (top === CORDON_DIR) return { allowed: false, target, rule: 'state-dir', why: `${CORDON_DIR}/ holds the armed envelope, which no tool call may change`, path };
  if (top === '.git' || parts.includes('.git')) return { allowed: false, target, rule: 'git-dir', why: '.git/ is git\'s own directory: check cannot see a change there, and git runs what it holds (hooks, config)', path };
  // An --allow-ignored path may be written when git ignores it, which only git can tell: the live
  // envelope refuses only what `check` certainly rejects, so it lets this one through to `check`.
  if (context.rules.ignoredAllowed(path)) return { allowed: true, target, path };
  const decision = context.rules.decide(path);
  if (!decision.allowed) return { allowed: false, target, rule: 'policy', why: `path outside policy: ${path === '' ? '(the repository root)' : shownPath(path)} (${refusalWhy(decision)})`, path };
  if (isAttributesPath(path)) return { allowed: false, target, rule: 'attributes', why: '.gitattributes cannot change inside an envelope (attributes decide how git counts changes)', path };
  return { allowed: true, target, path };
}

/**
 * `.cordon` or `.git` when the work tree's top-level entry `name` is that directory, however it
 * is spelled: by name, or, on a file system that folds case or Unicode forms (macOS, Windows),
 * by being the same file (`lstat` device and inode) as `<root>/.cordon` or `<root>/.git`.
 * Undefined otherwise.
 */
function stateDirOf(root: string, name: string): string | undefined {
  if (name === CORDON_DIR || name === '.git') return name;
  // Every spelling of either starts with a dot once the code points a folding file system
  // ignores are dropped (HFS+ ignores joiners): other names cost no lstat.
  if (name === '' || name === '..' || !name.replace(/\p{Default_Ignorable_Code_Point}/gu, '').startsWith('.')) return undefined;
  const entry = statOrUndefined(join(root, name));
  if (!entry) return undefined;
  for (const special of [CORDON_DIR, '.git']) {
    const stat = statOrUndefined(join(root, special));
    if (stat && stat.ino === entry.ino && stat.dev === entry.dev) return special;
  }
  return undefined;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
