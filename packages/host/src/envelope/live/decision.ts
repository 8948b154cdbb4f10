import type { ToolDecision, WriteTarget } from '@cordon/plugin-api';
import { displayPath } from '../path-text.js';
import { compilePathRules, type Policy } from '../policy/policy.js';
import type { GlobRegexStore } from '../glob-store.js';
import { judgeChange, shownPath, type WriteJudgement } from './judge.js';

/** `decided_by` of the live envelope's denials in markers. */
export const LIVE_ENVELOPE_BY = 'cordon:live-envelope';

/** Refused targets named in one reason; the rest are counted. */
const NAMED = 5;

/**
 * The `beforeToolCall` answer of the live envelope for a call that changes `targets` (as the tool
 * names them, each with how it changes it, a plain path as a `replace`; relative ones against `cwd`, which must be the call's
 * working directory with its links resolved): a deny when any target is refused by
 * {@link judgeChange}, else undefined. The
 * reason is for the model's next attempt: each refused target with the rule that refused it, then
 * what the envelope allows (its `--allow` globs, its `--deny` globs) and that `.cordon/` and
 * paths outside the repository are never writable. `store` keeps compiled globs across hook
 * processes ({@link GlobRegexStore}). `namedCwd` is the working directory as the agent reported
 * it (`JudgeContext.namedCwd`: a relative target's lexical normal form is judged from it too).
 */
export function liveWriteDecision(targets: ReadonlyArray<string | WriteTarget>, envelope: { readonly root: string; readonly policy: Policy }, cwd: string, store?: GlobRegexStore, namedCwd?: string): ToolDecision | undefined {
  if (targets.length === 0) return undefined;
  const rules = compilePathRules(envelope.policy, store);
  const refused: Array<Extract<WriteJudgement, { allowed: false }>> = [];
  for (const target of targets) {
    const judgement = judgeChange(typeof target === 'string' ? { path: target, kind: 'replace' } : target, { root: envelope.root, cwd, rules, ...(namedCwd !== undefined ? { namedCwd } : {}) });
    if (!judgement.allowed) refused.push(judgement);
  }
  if (refused.length === 0) return undefined;
  return { kind: 'deny', reason: liveReason(refused, envelope.policy), by: LIVE_ENVELOPE_BY };
}

/** The text of a live-envelope deny (see {@link liveWriteDecision}); agent-written paths shown with `shownPath` (escaped, cut). */
export function liveReason(refused: ReadonlyArray<Extract<WriteJudgement, { allowed: false }>>, policy: Pick<Policy, 'allow' | 'deny'>): string {
  const lines = refused.slice(0, NAMED).map((r) => `${shownPath(r.target)}: ${r.why}`);
  if (refused.length > NAMED) lines.push(`and ${refused.length - NAMED} more`);
  const deny = policy.deny.length > 0 ? `, except paths matching ${policy.deny.map(displayPath).join(', ')} (--deny)` : '';
  return [
    `cordon's live envelope refused this write (nothing was written): ${lines.join('; ')}.`,
    `The envelope armed for this repository allows writing only repository paths matching ${policy.allow.map(displayPath).join(', ')} (--allow)${deny}; never inside .cordon/ or .git/, or outside the repository. Write inside the allowed paths instead.`,
  ].join(' ');
}
