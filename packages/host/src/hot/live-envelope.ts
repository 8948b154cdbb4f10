import { realpathSync } from 'node:fs';
import type { Dialect, Logger, NativeToolBefore, ToolDecision } from '@cordon/plugin-api';
import { findWorkTree, readLiveEnvelope } from '../envelope/live/armed.js';
import { liveWriteDecision } from '../envelope/live/decision.js';

/**
 * The live envelope's answer to a `tool.before` event (docs/envelopes.md "The live envelope"), or
 * undefined. The dialect names the files the call writes (`Dialect.writeTargets`, decided by tool
 * name with no I/O): a call that writes none costs nothing more. For one that does, the work tree
 * of the call's working directory (the event's `cwd`, else the hook's) is found without git
 * (`findWorkTree`); when an envelope with `live` on is armed there, its policy is read
 * (`readLiveEnvelope`) and each target judged (`liveWriteDecision`). Never throws: a failure is
 * logged and the call proceeds (the final `cordon check` still audits it).
 */
export function liveEnvelopeDecision(dialect: Dialect, event: NativeToolBefore, log: Logger): ToolDecision | undefined {
  let targets: readonly string[] | undefined;
  try {
    targets = dialect.writeTargets?.(event.toolName, event.toolInput);
  } catch (error) {
    log.error('dialect could not name the files of a call; the live envelope does not judge it', { agent: dialect.name, tool: event.toolName, error: describe(error) });
    return undefined;
  }
  if (targets === undefined || targets.length === 0) return undefined;
  try {
    const cwd = realpathSync(event.cwd ?? process.cwd());
    const tree = findWorkTree(cwd);
    if (!tree?.armed) return undefined;
    const envelope = readLiveEnvelope(tree.root);
    return envelope ? liveWriteDecision(targets, envelope, cwd) : undefined;
  } catch (error) {
    log.error('live envelope could not judge a write; the call proceeds', { agent: dialect.name, tool: event.toolName, error: describe(error) });
    return undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
