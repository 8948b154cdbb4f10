import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isInside } from '../../io/safe-read.js';
import { displayPath } from '../path-text.js';
import { CORDON_DIR } from '../state/dir-name.js';
import { isAttributesPath, refusalWhy, type PathRules } from '../policy/policy.js';
import { resolveWrite } from './resolve.js';

/**
 * Which rule refused a write: `outside-repository` (the path is not in the work tree),
 * `symlink-escape` (it is, but a symbolic link on the way leads out, or links loop),
 * `state-dir` (inside `.cordon/`), `attributes` (a `.gitattributes`, which `check` never lets
 * change), `policy` (outside every `--allow`, or under a `--deny`).
 */
export type LiveRule = 'outside-repository' | 'symlink-escape' | 'state-dir' | 'attributes' | 'policy';

/** How the live envelope judged one write target. */
export type WriteJudgement =
  | { readonly allowed: true; readonly target: string; readonly path: string }
  | { readonly allowed: false; readonly target: string; readonly rule: LiveRule; readonly why: string; readonly path?: string };

/** What {@link judgeWrite} judges against. */
export interface JudgeContext {
  /** Work-tree root (absolute, links resolved: `git rev-parse --show-toplevel`). */
  readonly root: string;
  /** The call's working directory, which a relative target is resolved against. */
  readonly cwd: string;
  /** The armed policy's compiled path rules (`compilePathRules`, as `check` compiles them). */
  readonly rules: PathRules;
}

/**
 * Judges one file a tool call is about to write, as `check` would judge the change it makes
 * (docs/envelopes.md "The live envelope"): the target is resolved like the kernel resolves it
 * (`resolveWrite`: every link on the way followed), and the repo-relative path it lands on, with
 * `/` separators, goes through the policy's own `decide` and `check`'s `.gitattributes` rule.
 * Refused before that: a target outside the work tree, one that a symbolic link leads out of it
 * (or whose links loop), one inside `.cordon/`. A path an `--allow-ignored` glob matches is
 * allowed: `check` accepts it when git ignores it, which needs git to tell. `path` is the
 * repo-relative path judged.
 */
export function judgeWrite(target: string, context: JudgeContext): WriteJudgement {
  const { root } = context;
  const named = resolve(context.cwd, target);
  // Unnormalised: a `..` after a link goes up from where the link leads, as in the kernel.
  const landed = resolveWrite(isAbsolute(target) ? target : `${context.cwd}/${target}`);
  const namedInside = isInside(root, named);
  if (landed.loop) return { allowed: false, target, rule: 'symlink-escape', why: 'its symbolic links loop' };
  if (!isInside(root, landed.path)) {
    return namedInside
      ? { allowed: false, target, rule: 'symlink-escape', why: `a symbolic link on its way leads out of the repository, to ${displayPath(landed.path)}` }
      : { allowed: false, target, rule: 'outside-repository', why: `it is outside the repository ${displayPath(root)}` };
  }
  const path = relative(root, landed.path).split(sep).join('/');
  if (path === CORDON_DIR || path.startsWith(`${CORDON_DIR}/`)) return { allowed: false, target, rule: 'state-dir', why: `${CORDON_DIR}/ holds the armed envelope, which no tool call may change`, path };
  // An --allow-ignored path may be written when git ignores it, which only git can tell: the live
  // envelope refuses only what `check` certainly rejects, so it lets this one through to `check`.
  if (context.rules.ignoredAllowed(path)) return { allowed: true, target, path };
  const decision = context.rules.decide(path);
  if (!decision.allowed) return { allowed: false, target, rule: 'policy', why: `path outside policy: ${path === '' ? '(the repository root)' : displayPath(path)} (${refusalWhy(decision)})`, path };
  if (isAttributesPath(path)) return { allowed: false, target, rule: 'attributes', why: '.gitattributes cannot change inside an envelope (attributes decide how git counts changes)', path };
  return { allowed: true, target, path };
}
