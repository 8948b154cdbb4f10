import { lastBefore } from './memory.js';
import { ratio, type SessionData } from './types.js';

/** One retry loop: a run of identical consecutive shell commands. Times epoch ms / ms, memory MiB. */
export interface RetryGroup {
  readonly command: string;
  /** Calls in the run (≥ the minimum run, 3 by default). */
  readonly count: number;
  /** `seq` of the first and last call. */
  readonly first_seq: number;
  readonly last_seq: number;
  readonly start_ts: number;
  readonly end_ts: number;
  /** Σ durations of the run's calls. */
  readonly time_ms: number;
  /**
   * Memory left unreleased: the first sample at or after the last call's end minus the last sample
   * before the first call's start (paper code: memory after the group − memory before); `null`
   * without a sample on either side.
   */
  readonly unreleased_mb: number | null;
}

/**
 * Pass 4 result of one session. Rule (the paper's text "the same test command"): calls
 * are taken in start order; a group is ≥ `minRun` consecutive calls of canonical tool `shell`
 * with byte-identical command, and any other call ends a run. (The paper's code grouped any ≥ 3
 * consecutive Bash calls without comparing commands: the AgentCgroup analysis code, eunomia-bpf/agentcgroup.)
 */
export interface RetryLoops {
  readonly groups: RetryGroup[];
  /** Longest run, 0 without groups. */
  readonly longest: number;
  /** Σ of the groups' `time_ms`. */
  readonly retry_ms: number;
  /** `retry_ms` over Σ all call durations. */
  readonly share_of_tool_time: number | null;
  /** `retry_ms` over the session's active time (the paper's "share of total execution time"). */
  readonly share_of_active_time: number | null;
  /** Largest `unreleased_mb` of the groups. */
  readonly max_unreleased_mb: number | null;
}

/** Runs pass 4 over one session; `activeMs` and `toolSumMs` come from pass 1. */
export function retryLoops(d: SessionData, minRun: number, activeMs: number, toolSumMs: number): RetryLoops {
  const calls = [...d.calls].sort((a, b) => a.start_ts - b.start_ts || a.seq - b.seq);
  const groups: RetryGroup[] = [];
  let i = 0;
  while (i < calls.length) {
    const c = calls[i]!;
    let j = i + 1;
    if (c.tool === 'shell') while (j < calls.length && calls[j]!.tool === 'shell' && calls[j]!.command === c.command) j++;
    if (c.tool === 'shell' && j - i >= minRun) {
      const run = calls.slice(i, j);
      const start = run[0]!.start_ts;
      const end = Math.max(...run.map((r) => r.end_ts));
      const before = lastBefore(d.t, start);
      const after = lastBefore(d.t, end) + 1; // first sample with t >= end
      groups.push({
        command: c.command,
        count: run.length,
        first_seq: run[0]!.seq,
        last_seq: run[run.length - 1]!.seq,
        start_ts: start,
        end_ts: end,
        time_ms: run.reduce((a, r) => a + r.duration_ms, 0),
        unreleased_mb: before >= 0 && after < d.t.length ? d.mem[after]! - d.mem[before]! : null,
      });
    }
    i = j;
  }
  const retry = groups.reduce((a, g) => a + g.time_ms, 0);
  const unreleased = groups.map((g) => g.unreleased_mb).filter((v): v is number => v !== null);
  return {
    groups,
    longest: groups.reduce((a, g) => Math.max(a, g.count), 0),
    retry_ms: retry,
    share_of_tool_time: ratio(retry, toolSumMs),
    share_of_active_time: ratio(retry, activeMs),
    max_unreleased_mb: unreleased.length ? Math.max(...unreleased) : null,
  };
}
