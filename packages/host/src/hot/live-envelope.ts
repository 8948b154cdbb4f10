import type { Dialect, Logger, NativeToolBefore, ToolDecision, WriteTarget } from '@cordon/plugin-api';
import { join } from 'node:path';
import { GlobRegexStore, globCompilerKey } from '../envelope/glob-store.js';
import { liveDecisionFor } from '../envelope/live/route.js';
import { HOST_ROOT } from '../util/host-root.js';
import { resolvePaths } from '../util/paths.js';

/**
 * The live envelope's answer to a `tool.before` event (docs/envelopes.md "The live envelope"), or
 * undefined. The dialect names the files the call changes and how (`Dialect.writeTargets`, decided
 * by tool name with no I/O): a call that writes none costs nothing more. For one that does, each target
 * is judged by the live envelope armed in the work tree of the call's working directory (the
 * event's `cwd`, else the hook's), else by the one armed where the target lands
 * (`liveDecisionFor`; work trees found without git). Never throws: a failure is
 * logged and the call proceeds (the final `cordon check` still audits it).
 */
export function liveEnvelopeDecision(dialect: Dialect, event: NativeToolBefore, log: Logger): ToolDecision | undefined {
  let targets: ReadonlyArray<string | WriteTarget> | undefined;
  try {
    targets = dialect.writeTargets?.(event.toolName, event.toolInput);
  } catch (error) {
    log.error('dialect could not name the files of a call; the live envelope does not judge it', { agent: dialect.name, tool: event.toolName, error: describe(error) });
    return undefined;
  }
  if (targets === undefined || targets.length === 0) return undefined;
  try {
    // Globs compiled by an earlier hook process of this build are reused (GlobRegexStore).
    const key = globCompilerKey(join(HOST_ROOT, 'dist', 'hot'));
    const store = key === undefined ? undefined : new GlobRegexStore(resolvePaths(process.env).cacheDir, key);
    const decision = liveDecisionFor(targets, event.cwd ?? process.cwd(), store);
    store?.save();
    return decision;
  } catch (error) {
    log.error('live envelope could not judge a write; the call proceeds', { agent: dialect.name, tool: event.toolName, error: describe(error) });
    return undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
