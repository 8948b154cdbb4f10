import type { Marker } from '../markers.js';

/** A `tool_start` matched with its `tool_end`. */
export interface PairedCall {
  readonly start: Marker;
  readonly end: Marker;
}

/** Outcome of {@link pairCalls}. */
export interface Pairing {
  /** Paired calls, in start order. */
  readonly calls: PairedCall[];
  /** Starts no end matched (agent crashed or was killed, hook timed out, end hook missing). */
  readonly unpairedStarts: Marker[];
  /** Ends with no earlier start of the same key (start hook failed or ran late). */
  readonly orphanEnds: Marker[];
}

/**
 * Pairs tool markers (uncoalesced/cordon): markers are taken in `ts` order; each
 * `tool_start` is pushed on a stack per `call_key`, and a `tool_end` pops the most recent start
 * with the same key. Other events are ignored (`tool_denied` has neither a start nor an end).
 */
export function pairCalls(markers: readonly Marker[]): Pairing {
  const ordered = markers.map((m, i) => ({ m, i })).sort((a, b) => a.m.ts - b.m.ts || a.i - b.i);
  const open = new Map<string, Marker[]>();
  const calls: PairedCall[] = [];
  const orphanEnds: Marker[] = [];
  for (const { m } of ordered) {
    if (m.event === 'tool_start') {
      const key = m.call_key ?? '';
      const stack = open.get(key);
      if (stack) stack.push(m);
      else open.set(key, [m]);
    } else if (m.event === 'tool_end') {
      const start = open.get(m.call_key ?? '')?.pop();
      if (start) calls.push({ start, end: m });
      else orphanEnds.push(m);
    }
  }
  const unpairedStarts = [...open.values()].flat().sort((a, b) => a.ts - b.ts);
  calls.sort((a, b) => a.start.ts - b.start.ts);
  return { calls, unpairedStarts, orphanEnds };
}

/**
 * Total length of the union of `[start, end]` intervals (overlaps merged, so parallel calls cannot
 * push the tool-time fraction over 1: uncoalesced/cordon), in the intervals' unit.
 */
export function unionLength(intervals: ReadonlyArray<readonly [number, number]>): number {
  const sorted = [...intervals].filter(([a, b]) => b >= a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [a, b] of sorted) {
    if (a > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = a;
      curEnd = b;
    } else if (b > curEnd) curEnd = b;
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}
