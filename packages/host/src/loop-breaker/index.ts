import type { Logger, ToolResult } from '@cordon/plugin-api';
import { markerField, markersPath } from '../telemetry/markers.js';
import { loopFeedbackText } from './feedback.js';
import { countFailures } from './rule.js';
import { loopThreshold } from './settings.js';
import { recentShellEnds } from './tail.js';

export { normaliseShellCommand } from './normalise.js';
export { countFailures, type EarlierEnd, type FailureCount } from './rule.js';
export { DEFAULT_LOOP_THRESHOLD, HOOK_SETTINGS_FILE, loopThreshold, parseLoopSetting, type LoopThreshold } from './settings.js';
export { loopFeedbackText } from './feedback.js';
export { LOOP_WINDOW_BYTES, recentShellEnds } from './tail.js';

/** What the loop breaker says about one finished call, when it says anything. */
export interface LoopBreak {
  /** The feedback for the model ({@link loopFeedbackText}). */
  readonly text: string;
  /** Consecutive failures of the command, this call included (≥ the threshold). */
  readonly failures: number;
  /** True when the breaker already answered an earlier failure of the same run. */
  readonly repeat: boolean;
}

/** Where the loop breaker reads: the data directory (markers), the configuration directory (`hook.json`), the environment. */
export interface LoopBreakerContext {
  readonly dataDir: string;
  readonly configDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
}

/**
 * The loop breaker (docs/hooks.md "The loop breaker"; AgentSight, arXiv 2508.02736, §5.2.2):
 * for a shell call that failed, counts its command's consecutive failures in the session, in
 * the call's working directory ({@link countFailures} over the last {@link LOOP_WINDOW_BYTES} of the session's markers, the
 * current call not yet among them) and, from the threshold on, returns the feedback. A call
 * without a session id is not counted (it cannot be told from another session's). Costs nothing
 * for any other call: a call that is not a failed shell call returns at once, before any read.
 * Never throws: a read failure is logged and the call gets no feedback.
 */
export function loopBreak(result: ToolResult, command: string, ctx: LoopBreakerContext): LoopBreak | undefined {
  if (result.status !== 'failed' || result.call.canonicalTool !== 'shell') return undefined;
  // Without a session id every such call would share one log (`unknown-session`): no count to trust.
  if (result.call.sessionId.trim() === '') return undefined;
  try {
    const threshold = loopThreshold(ctx.env, ctx.configDir, ctx.log);
    if (threshold === 'off') return undefined;
    // The working directory as the markers keep it (a long one bounded, markerField).
    const cwd = result.call.cwd === undefined ? undefined : markerField(result.call.cwd);
    const { failures, answeredBefore } = countFailures(command, recentShellEnds(markersPath(ctx.dataDir, result.call.sessionId)), cwd);
    if (failures < threshold) return undefined;
    return { text: loopFeedbackText(failures), failures, repeat: answeredBefore };
  } catch (error) {
    ctx.log.error('loop breaker could not read the session', { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}
