import { ratio, type SessionData } from './types.js';

/**
 * Cordon's own measured cost in one session, set against the session's wall time, for the
 * AgentSight overhead row (AgentSight: System-Level Observability for AI Agents Using eBPF,
 * arXiv 2508.02736, §5.1 Table 1: < 3 % end to end). Times in ms.
 */
export interface OwnCost {
  /** Σ of the hooks' own wall time (each marker's `hook_overhead_ms`): the agent waits for every hook. */
  readonly hook_ms: number | null;
  /** The samplers' own CPU (user + system). */
  readonly sampler_cpu_ms: number | null;
  /** The session's wall time: first to last event (markers and samples). */
  readonly wall_ms: number;
  /** `(hook_ms + sampler_cpu_ms) / wall_ms`; `null` without a wall time or without either cost. */
  readonly share: number | null;
}

/** {@link OwnCost} of one session, from its stored row (`hook_ms`, `sampler_cpu_ms`, `first_ts`, `last_ts`). */
export function ownCost(d: SessionData): OwnCost {
  const { first_ts, last_ts } = d.session;
  const hook = d.session.hook_ms ?? null;
  const sampler = d.session.sampler_cpu_ms ?? null;
  const wall = first_ts !== null && last_ts !== null ? Math.max(0, last_ts - first_ts) : 0;
  const cost = hook === null && sampler === null ? null : (hook ?? 0) + (sampler ?? 0);
  return { hook_ms: hook, sampler_cpu_ms: sampler, wall_ms: wall, share: ratio(cost, wall) };
}

/**
 * A failing retry loop as AgentSight's §5.2.2 case describes it (arXiv 2508.02736: an identical
 * failing command retried, alert after 3 full cycles): ≥ `minRun` consecutive shell calls with
 * the same command, every one of them failed (`exit_status` `failed`, or a non-zero exit code).
 */
export interface FailingLoops {
  /** Loops found. */
  readonly n: number;
  /** Cycles of the longest one, 0 without loops. */
  readonly longest: number;
  /** Σ durations of their calls, ms. */
  readonly time_ms: number;
}

/** Whether a stored call failed: `exit_status` `failed`, or a non-zero exit code. */
function failed(c: SessionData['calls'][number]): boolean {
  return c.exit_status === 'failed' || (c.exit_code !== null && c.exit_code !== 0);
}

/** Finds {@link FailingLoops} in one session (calls in start order; any other call ends a run). */
export function failingLoops(d: SessionData, minRun: number): FailingLoops {
  const calls = [...d.calls].sort((a, b) => a.start_ts - b.start_ts || a.seq - b.seq);
  let n = 0;
  let longest = 0;
  let time = 0;
  let i = 0;
  while (i < calls.length) {
    const c = calls[i]!;
    let j = i + 1;
    if (c.tool === 'shell' && failed(c)) while (j < calls.length && calls[j]!.tool === 'shell' && calls[j]!.command === c.command && failed(calls[j]!)) j++;
    if (c.tool === 'shell' && failed(c) && j - i >= minRun) {
      n++;
      longest = Math.max(longest, j - i);
      for (let k = i; k < j; k++) time += calls[k]!.duration_ms;
    }
    i = j;
  }
  return { n, longest, time_ms: time };
}
