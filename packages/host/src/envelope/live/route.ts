import { realpathSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import type { ToolDecision, WriteKind, WriteTarget } from '@cordon/plugin-api';
import { nodeOs } from '../../util/builtins.js';
import { findWorkTree, readLiveEnvelope, type LiveEnvelope } from './armed.js';
import { liveWriteDecision } from './decision.js';
import type { GlobRegexStore } from '../glob-store.js';
import { resolveWrite, writeSpellings } from './resolve.js';

/**
 * The live envelope's answer for a call that changes `written` (as the dialect names them: a path,
 * judged as a `replace`, or a path with how the call changes it; relative ones against `cwd`, the
 * call's working directory as the agent reports it), or undefined
 * (docs/envelopes.md "The live envelope", "Which repository"). Each target is judged by the
 * envelope armed where the call works, else by the one armed where the target lands:
 *
 * - the work tree of `cwd` (links resolved), when a live envelope is armed there, judges every
 *   target, and refuses those outside it;
 * - otherwise each target is resolved as the kernel would (`resolveWrite`, a final link followed
 *   or not as its kind says; a `replace` both ways), as spelt and as normalised
 *   (`writeSpellings`: agents that take `..` off before writing), and judged by the live envelope
 *   armed in each work tree it lands in, if any: an agent working outside an armed repository is
 *   refused a write into it as one working inside it is.
 *
 * A target `~` or `~/…` is judged as the home directory or a path in it (`os.homedir()`, the
 * agent's `HOME`: the hook runs in its environment), as Claude Code's file tools expand it (its
 * `Write` of `~/x` writes `$HOME/x`, seen with 2.1.332); for an agent that takes `~` literally
 * (Codex, Gemini CLI) this can only refuse more. A relative target of a call whose `cwd` does
 * not exist is not judged (the agent cannot write it there either). With several envelopes refusing, the first refusal is answered. Reads each
 * work tree's `.cordon/config.json` at most once (`readLiveEnvelope`, which throws on a damaged
 * file: the caller logs it and lets the call proceed). `store` keeps compiled globs across hook
 * processes.
 */
export function liveDecisionFor(written: ReadonlyArray<string | WriteTarget>, cwd: string, store?: GlobRegexStore): ToolDecision | undefined {
  const targets = written.map(asWriteTarget);
  let realCwd: string | undefined;
  try {
    realCwd = realpathSync(cwd);
  } catch {
    realCwd = undefined;
  }
  const read = new Map<string, LiveEnvelope | undefined>();
  const envelopeAt = (root: string): LiveEnvelope | undefined => {
    if (!read.has(root)) read.set(root, readLiveEnvelope(root));
    return read.get(root);
  };
  const here = realCwd === undefined ? undefined : findWorkTree(realCwd);
  const hereEnvelope = here?.armed ? envelopeAt(here.root) : undefined;
  if (hereEnvelope) return liveWriteDecision(targets, hereEnvelope, realCwd!, store, cwd);

  const groups = new Map<LiveEnvelope, WriteTarget[]>();
  for (const target of targets) {
    if (!isAbsolute(target.path) && realCwd === undefined) continue;
    const follows = target.kind === 'replace' ? [false, true] : [target.kind === 'write'];
    // As spelt and as normalised (an agent may take `..` off first): each may land in an armed
    // tree. A spelling too long to be written lands nowhere (a normalised one may still).
    for (const spelling of writeSpellings(target.path, realCwd ?? '/', cwd)) {
      for (const followLast of follows) {
        const landed = resolveWrite(spelling, { followLast });
        // Looping links: nothing lands anywhere.
        if (landed.loop) continue;
        const tree = findWorkTree(dirname(landed.path));
        if (!tree?.armed || tree.root === here?.root) continue;
        const envelope = envelopeAt(tree.root);
        const group = envelope === undefined ? undefined : (groups.get(envelope) ?? []);
        if (envelope && group && !group.includes(target)) groups.set(envelope, [...group, target]);
      }
    }
  }
  for (const [envelope, group] of groups) {
    const decision = liveWriteDecision(group, envelope, realCwd ?? '/', store, cwd);
    if (decision) return decision;
  }
  return undefined;
}

/**
 * `written` as a {@link WriteTarget} with `~` expanded ({@link expandHome}): a plain path, or a
 * kind this build does not know, is a `replace` (both sides of a final link judged, never weaker).
 */
function asWriteTarget(written: string | WriteTarget): WriteTarget {
  if (typeof written === 'string') return { path: expandHome(written), kind: 'replace' };
  return { path: expandHome(written.path), kind: KINDS.has(written.kind) ? written.kind : 'replace' };
}

const KINDS: ReadonlySet<WriteKind> = new Set(['write', 'remove', 'replace']);

function isHomeRelative(path: string): boolean {
  return path === '~' || path.startsWith('~/');
}

/** `~` as the home directory, `~/x` as a path in it; anything else as written. */
export function expandHome(path: string): string {
  if (!isHomeRelative(path)) return path;
  const home = nodeOs().homedir();
  return path === '~' ? home : `${home.replace(/\/+$/, '')}/${path.slice(2)}`;
}
