import type { GuardResult } from '@cordon/plugin-api';
import type { ShownEndedProcess } from './ended.js';
import { mib, nextTierName } from './tiers.js';

/** Stall below this never warns (the paper's per-allocation stalls are tens of ms; the tier table of uncoalesced/cordon). */
export const STALL_FLOOR_MS = 200;
/** Share of the runtime a stall must exceed to warn. */
export const STALL_SHARE = 0.05;
/** From this warning on for the same command the note says retrying unchanged will not help. */
export const ESCALATE_AT = 3;

/** True when the result's stall figures come from `memory.events` (no PSI). */
function withoutPsi(result: GuardResult): boolean {
  return result.stallSource === 'memory.events' || (result.memoryPressure === null && result.throttledMs !== undefined);
}

/**
 * Memory stall of a result in ms: PSI's `full` total, or, where PSI cannot be read, the time the
 * backend saw the call held over memory.high (`memory.events` high growing, `throttledMs`).
 */
export function stallMs(result: GuardResult): number {
  return withoutPsi(result) ? (result.throttledMs ?? 0) : (result.memoryPressure?.fullUs ?? 0) / 1000;
}

/**
 * Whether a run warrants the note (the tier table of uncoalesced/cordon): always after an OOM kill or a
 * freeze, else when the memory stall exceeded max(200 ms, 5 % of the runtime). Never for a run
 * that was not enforced (nothing was measured).
 */
export function shouldWarn(result: GuardResult): boolean {
  if (!result.enforced) return false;
  if ((result.events.oom_kill ?? 0) > 0 || result.frozenCount > 0) return true;
  return stallMs(result) > Math.max(STALL_FLOOR_MS, STALL_SHARE * result.wallMs);
}

const s1 = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * The note appended to stderr after the command's own output (the tier table of uncoalesced/cordon, the seed's
 * content): peak MiB against the tier and its limit, the stall in seconds and percent of the
 * runtime, a freeze, OOM kills, the stall policy's raises, from the third warning for the same
 * command that retrying unchanged will probably not help, and the advice. One line.
 */
export function noteText(result: GuardResult, warningNumber: number): string {
  const parts = ['[cordon] This tool call was resource-limited.'];
  const peak = result.peakBytes === null ? 'an unknown amount of memory' : `${mib(result.peakBytes)} MiB`;
  const limit = result.limitBytes === null ? `memory:${result.tier} (no memory limit)` : `a memory:${result.tier} limit of ${mib(result.limitBytes)} MiB`;
  parts.push(`It peaked at ${peak} against ${limit}.`);
  const stall = stallMs(result);
  if (stall >= 50) {
    const pct = result.wallMs > 0 ? Math.min(100, (100 * stall) / result.wallMs) : 0;
    if (withoutPsi(result)) {
      parts.push(`It was throttled over its memory limit for about ${s1(stall)} s (${pct.toFixed(0)} % of its ${s1(result.wallMs)} s runtime; memory.events high ${result.events.high ?? 0}, no PSI here).`);
    } else parts.push(`It stalled on memory for ${s1(stall)} s (${pct.toFixed(0)} % of its ${s1(result.wallMs)} s runtime).`);
  }
  for (const e of result.escalations) {
    const why = e.cause === 'memory.events' ? 'sustained throttling over memory.high' : 'a sustained full stall';
    parts.push(`After ${why} cordon raised memory.high to memory:${e.to}${e.limitBytes === null ? ' (no limit)' : ` (${mib(e.limitBytes)} MiB)`} at ${s1(e.atMs)} s.`);
  }
  if (result.frozenCount > 0) parts.push(`It was frozen for ${s1(result.frozenMs)} s and resumed, not killed.`);
  const kills = result.events.oom_kill ?? 0;
  // The kernel counts a victim once more when memory.oom.group kills its group, so the count is
  // the kernel's, not a number of processes.
  if (kills > 0) parts.push(`It was killed by the OOM killer (memory.events oom_kill ${kills}): a hard limit above cordon's, e.g. memory.max of a parent cgroup, was reached.`);
  if (warningNumber >= ESCALATE_AT) parts.push(`This is limit warning number ${warningNumber} for this exact command; retrying it unchanged is unlikely to help.`);
  const next = nextTierName(result.finalTier);
  parts.push(
    next === result.finalTier
      ? 'Narrow the command (fewer files, tests or parallel jobs); it already ran without a memory limit.'
      : `Narrow the command (fewer files, tests or parallel jobs) or set AGENT_RESOURCE_HINT=memory:${next}.`,
  );
  return parts.join(' ');
}

/**
 * The sentence that tells the agent which processes cordon ended when the call finished (issue
 * 28): a guarded call's cgroup is removed with the call, so what it started in the background
 * (`nohup … &`, a dev server) does not outlive it. Names up to five processes by pid and command
 * line (redacted, escaped and cut by control/ended.ts), and says what to do instead. One line.
 */
export function endedText(ended: readonly ShownEndedProcess[]): string {
  const shown = ended.slice(0, 5).map((p) => `${p.pid} (${p.command})`);
  const more = ended.length > shown.length ? ` and ${ended.length - shown.length} more` : '';
  const n = ended.length === 1 ? '1 process' : `${ended.length} processes`;
  return `When this tool call ended, cordon ended ${n} it had left running: ${shown.join(', ')}${more}. Processes started in the background do not outlive a guarded call; start long-running ones (servers, watchers) outside it, e.g. with the agent's own background-task feature.`;
}

/** The command as warnings are counted: argv joined by single spaces, runs of white space collapsed, trimmed. */
export function normaliseCommand(argv: readonly string[]): string {
  return argv.join(' ').replace(/\s+/g, ' ').trim();
}
