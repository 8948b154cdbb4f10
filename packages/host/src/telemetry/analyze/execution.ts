import { unionLength } from '../reduce/pair.js';
import { ratio, type SessionData } from './types.js';

/**
 * Pass 1, execution split of one session. Two definitions side by side:
 * - Cordon's (uncoalesced/cordon): tool time is the **union** of call windows clipped to the
 *   sampled span (reduce's `span_start_ts`..`span_end_ts`: from the command's start to the last
 *   sample or the session's end; first to last sample for rows reduced before migration 0005),
 *   over that span; parallel calls count once.
 * - The paper's (the AgentCgroup analysis code, eunomia-bpf/agentcgroup, `compute_active_time.py`): the **sum** of call durations over the
 *   active time (first to last recorded event; here markers and samples, from the session row).
 * Times in ms.
 */
export interface ExecutionSplit {
  /** The sampled span, ms: reduce's `span_end_ts − span_start_ts`, or last − first sample for older rows (0 without samples). */
  readonly span_ms: number;
  /** Union of call windows clipped to the sampled span. */
  readonly tool_union_ms: number;
  /** `tool_union_ms / span_ms`; `null` when the span is 0. */
  readonly tool_fraction: number | null;
  /** `span_ms − tool_union_ms`: sampled time outside every call (model reasoning, idle). */
  readonly outside_ms: number;
  /** Σ call durations (parallel calls counted twice, as the paper's code does). */
  readonly tool_sum_ms: number;
  /** Last − first event time of the session (markers and samples). */
  readonly active_ms: number;
  /** `tool_sum_ms / active_ms` (the paper's "tool share of active time"); `null` when 0. */
  readonly paper_tool_fraction: number | null;
}

/** Runs pass 1 over one session. */
export function executionSplit(d: SessionData): ExecutionSplit {
  const n = d.t.length;
  const { span_start_ts: spanStart, span_end_ts: spanEnd } = d.session;
  const stored = n > 0 && typeof spanStart === 'number' && typeof spanEnd === 'number';
  const first = stored ? spanStart : n ? d.t[0]! : 0;
  const last = stored ? spanEnd : n ? d.t[n - 1]! : 0;
  const span = stored || n >= 2 ? last - first : 0;
  // Windows clipped to the sampled span, so the fraction never exceeds 1 (reduce's union).
  const union = span > 0 ? unionLength(d.calls.map((c) => [Math.max(c.start_ts, first), Math.min(c.end_ts, last)] as const)) : 0;
  let sum = 0;
  for (const c of d.calls) sum += c.duration_ms;
  const { first_ts, last_ts } = d.session;
  const active = first_ts !== null && last_ts !== null ? last_ts - first_ts : 0;
  return {
    span_ms: span,
    tool_union_ms: union,
    tool_fraction: ratio(union, span),
    outside_ms: span - union,
    tool_sum_ms: sum,
    active_ms: active,
    paper_tool_fraction: ratio(sum, active),
  };
}
