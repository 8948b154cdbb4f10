import type { Dialect, Logger, NativeToolBefore, ToolDecision, WriteTarget } from '@cordon/plugin-api';
import { realpathSync } from 'node:fs';
import { findWorkTree, readLiveEnvelope } from '../envelope/live/armed.js';
import { LIVE_ENVELOPE_BY } from '../envelope/live/decision.js';
import { dialectContext } from './dialect-context.js';
import { liveEnvelopeDecision } from './live-envelope.js';
import type { ValuePath } from './payload-reduce.js';
import type { OversizedPayload } from './stdin.js';

/**
 * Texts put in place of every cut value to learn whether the files a call writes depend on it:
 * nothing, and one text that names a file in every form the dialects read (a path, a line of an
 * apply_patch envelope, a shell command running apply_patch with a heredoc).
 */
const PROBES = ['', "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: cordon-probe\n*** End Patch\nEOF"] as const;

/**
 * The live envelope's answer to a `tool.before` event read from a payload over the hook's size
 * limit, in its reduced form (`payload-reduce.ts`; docs/envelopes.md "Payloads over the size
 * limit"). The reduced form keeps every short string and the skeleton of each long one, which is
 * all the dialects' `writeTargets` read (file paths, patch headers). Where the reducer cut
 * something, the targets are computed again with each cut value replaced by each of
 * {@link PROBES}: when they stay the same the cut text does not name the files (the content of a
 * `Write`), and the targets are judged as for any payload ({@link liveEnvelopeDecision}).
 *
 * When they change, the files the call writes cannot be known. The call is then refused (fail
 * closed) if, and only if, a live envelope is armed in the work tree of the call's working
 * directory: the user asked that no write outside the policy land there, and the agent can
 * retry in smaller pieces; with none armed there the call proceeds. Never throws.
 */
export async function oversizedLiveDecision(dialect: Dialect, event: NativeToolBefore, payload: Readonly<Record<string, unknown>>, oversized: OversizedPayload & { readonly bytes: number }, env: Readonly<Record<string, string | undefined>>, log: Logger): Promise<ToolDecision | undefined> {
  if (!dialect.writeTargets) return undefined;
  let known = !oversized.cutEverywhere;
  let writes = false;
  try {
    const targets = dialect.writeTargets(event.toolName, event.toolInput);
    writes = targets !== undefined;
    if (known && oversized.cuts.length > 0) {
      for (const probe of PROBES) {
        const probed = await dialect.parse(withValues(payload, oversized.cuts, probe), dialectContext(env));
        const again = probed?.kind === 'tool.before' ? dialect.writeTargets(probed.toolName, probed.toolInput) : undefined;
        if (again !== undefined) writes = true;
        if (!sameTargets(targets, again)) known = false;
      }
    } else if (!known) {
      // Cut everywhere: a call that writes may name more files than were kept.
      known = targets === undefined;
    }
  } catch (error) {
    log.error('dialect could not name the files of an oversized call', { agent: dialect.name, tool: event.toolName, error: error instanceof Error ? error.message : String(error) });
    known = false;
    writes = true;
  }
  if (known) return liveEnvelopeDecision(dialect, event, log);
  if (!writes) return undefined;
  try {
    const cwd = event.cwd ?? process.cwd();
    const tree = findWorkTree(realpathSync(cwd));
    if (!tree?.armed || !readLiveEnvelope(tree.root)) return undefined;
    log.warn('live envelope refused an oversized write whose files could not be determined', { agent: dialect.name, tool: event.toolName, bytes: oversized.bytes });
    return {
      kind: 'deny',
      reason: `cordon's live envelope refused this write (nothing was written): the call's input is ${oversized.bytes} bytes, over the hook's size limit, and the files it writes could not be determined from it. Write the change in smaller calls.`,
      by: LIVE_ENVELOPE_BY,
    };
  } catch (error) {
    log.error('live envelope could not judge an oversized write; the call proceeds', { agent: dialect.name, tool: event.toolName, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

/** A copy of `payload` with the value at each of `paths` replaced by `value` (containers copied along the way). */
function withValues(payload: Readonly<Record<string, unknown>>, paths: readonly ValuePath[], value: string): Record<string, unknown> {
  const root = { ...payload };
  paths: for (const path of paths) {
    if (path.length === 0) continue;
    let node: Record<string | number, unknown> = root;
    for (let i = 0; i < path.length - 1; i++) {
      const child = Object.hasOwn(node, path[i]!) ? node[path[i]!] : undefined;
      if (!child || typeof child !== 'object') continue paths;
      const copy = Array.isArray(child) ? [...child] : { ...(child as object) };
      set(node, path[i]!, copy);
      node = copy as Record<string | number, unknown>;
    }
    set(node, path[path.length - 1]!, value);
  }
  return root;
}

/** Sets an own property, whatever its name (`__proto__` included). */
function set(node: object, key: string | number, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

function sameTargets(a: readonly (string | WriteTarget)[] | undefined, b: readonly (string | WriteTarget)[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  // A target is its path and how the call changes it (a plain path is a `replace`).
  const key = (t: string | WriteTarget) => (typeof t === 'string' ? `replace\0${t}` : `${t.kind}\0${t.path}`);
  const set = new Set(a.map(key));
  return b.length === a.length && b.every((t) => set.has(key(t)));
}
