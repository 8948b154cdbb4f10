import { basename, join } from 'node:path';
import { MARKERS_FILE, readMarkers, type Marker } from '../markers.js';
import { SAMPLER_FILES } from '../sampler/files.js';
import type { Sample } from '../sampler/sample.js';
import { liveSampler, readSamplerEvents, type SamplerEventLine } from '../sampler/state.js';
import { pairCalls, unionLength } from './pair.js';
import { readSamples, windowStats } from './samples.js';

/**
 * One paired tool call with the samples of its window (uncoalesced/cordon
 * ToolCallRecord; times are epoch ms like the markers, memory MiB, CPU % of one core).
 * Memory and CPU are `null` for a call with no sample in its window (shorter than a tick).
 */
export interface ToolCallRecord {
  readonly session_id: string;
  /** 1-based position in start order within the session. */
  readonly seq: number;
  readonly call_key: string;
  /** Native tool name (`Bash`, `run_shell_command`). */
  readonly tool_name: string;
  /** Canonical family (`shell`, `read`, …). */
  readonly tool: string;
  readonly command: string;
  /** Start marker `ts`, epoch ms. */
  readonly start_ts: number;
  /** End marker `ts`, epoch ms. */
  readonly end_ts: number;
  /** `end_ts - start_ts`, ms. */
  readonly duration_ms: number;
  /** Max `mem_mb` of the samples with `start_ts <= t <= end_ts`. */
  readonly peak_memory_mb: number | null;
  /** Mean `mem_mb` of those samples. */
  readonly avg_memory_mb: number | null;
  /** Mean `cpu_pct` of those samples. */
  readonly avg_cpu_pct: number | null;
  readonly n_samples: number;
  /** From the end marker: `ok`, `failed`, `unknown`. */
  readonly exit_status: string | null;
  readonly exit_code: number | null;
  /** The start hook's own cost (its marker's `hook_overhead_ms`). */
  readonly hook_overhead_ms: number | null;
}

/** Reduction counters and session-level numbers (uncoalesced/cordon `summary.json` and baseline). */
export interface SessionSummary {
  /** The agent's session id as the markers carry it (the directory name when there are none). */
  readonly session_id: string;
  /** Absolute session directory. */
  readonly dir: string;
  readonly agent: string | null;
  /** Earliest and latest time seen in markers and samples, epoch ms. */
  readonly first_ts: number | null;
  readonly last_ts: number | null;
  /** A `session_end` marker exists. */
  readonly ended: boolean;
  readonly n_markers: number;
  /** Marker lines that were unparseable or of another schema version. */
  readonly bad_markers: number;
  readonly n_samples: number;
  readonly bad_samples: number;
  /** Paired calls. */
  readonly n_toolcalls: number;
  /** `tool_start` markers no `tool_end` matched. */
  readonly unpaired_starts: number;
  /** `tool_end` markers with no earlier matching start. */
  readonly orphan_ends: number;
  /** `tool_denied` markers (a policy refused the call; it never ran). */
  readonly denied_calls: number;
  /** Paired calls whose window holds no sample: shorter than a tick. */
  readonly short_calls: number;
  /** Samples taken while a process of the tree vanished mid-read. */
  readonly partial_samples: number;
  /**
   * The sampled span, `span_end_ts − span_start_ts`, ms (0 without samples). It starts when
   * sampling was asked for (the sampler's `start` event's `since`: the wrapped command's spawn, the
   * marker whose hook started the sampler) when that precedes the first sample, which comes a
   * sampler start-up and one interval later; and it ends at the session's end when the session
   * ended while sampled (a `session_end` marker after the last sample and before that sampler's
   * `stop`: `wrap`'s child exited between two ticks; after a `stop` of reason `agent-exit`, which
   * saw the exit, at that stop), else at the last sample.
   */
  readonly span_ms: number;
  /** Start of the sampled span, epoch ms; `null` without samples. */
  readonly span_start_ts: number | null;
  /** End of the sampled span, epoch ms; `null` without samples. */
  readonly span_end_ts: number | null;
  /**
   * A sampler was still sampling the session when it was read (its process alive, no `stop`
   * event): the session is live and its numbers are partial, they grow as the sampler writes.
   */
  readonly live: boolean;
  /** Union of the paired calls' windows (overlaps merged), ms. */
  readonly tool_time_ms: number;
  /**
   * The union of call windows clipped to the sampled span, over the span: the share of sampled
   * time spent in tools (never above 1). `null` when the span is 0.
   */
  readonly tool_time_fraction: number | null;
  /** 10th percentile of all samples' `mem_mb` (index ⌊0.1·n⌋ of the sorted values; uncoalesced/cordon). */
  readonly baseline_memory_mb: number | null;
  readonly peak_memory_mb: number | null;
  readonly avg_memory_mb: number | null;
  readonly avg_cpu_pct: number | null;
  /** Samplers started for this session (`start` events in `sampler.jsonl`). */
  readonly sampler_starts: number;
  /** Why each sampler stopped, in order (`stop-file`, `agent-exit`, `idle`, …). */
  readonly sampler_stop_reasons: string[];
  /**
   * Cordon's hook time: Σ `hook_overhead_ms` over every marker (each hook's wall time from its
   * start to its marker write, which the agent waits for), ms.
   */
  readonly hook_ms: number;
  /**
   * The samplers' own CPU (user + system), ms, from their `stop` events (`self_cpu_ms`, else
   * `self_cpu_pct` over the time from the matching `start`); `null` when no sampler stopped yet.
   */
  readonly sampler_cpu_ms: number | null;
  /**
   * Loops the loop breaker broke: `tool_end` markers on which it answered the agent for a new run
   * of failures (`loop_failures` without `loop_repeat`; docs/hooks.md "The loop breaker").
   */
  readonly loops_broken: number;
}

/** A reduced session. */
export interface ReducedSession {
  readonly summary: SessionSummary;
  readonly calls: ToolCallRecord[];
  /** The session's samples, sorted by `t`. */
  readonly samples: Sample[];
}

/**
 * Reduces one session directory: reads `markers.jsonl` and `samples.jsonl`, pairs the calls,
 * joins each call's samples (inclusive window) and computes the summary. Pure apart from reading
 * the three files and asking whether the session's sampler still runs (its lock and, on Linux,
 * `/proc/<pid>/stat`: `live`); bad lines are counted, never fatal. It does not wait for a sampler;
 * callers that should (`reduce`, `analyze`) call `settleEndedSession` first.
 */
export function reduceSession(dir: string): ReducedSession {
  // Asked before the files are read: a sampler that stops meanwhile has written everything it will.
  const live = liveSampler(dir) !== undefined;
  const { markers, badLines } = readMarkers(join(dir, MARKERS_FILE));
  const sampled = readSamples(join(dir, SAMPLER_FILES.samples));
  const samples = sampled.samples;
  const sessionId = markers.find((m) => m.session_id)?.session_id ?? basename(dir);
  const pairing = pairCalls(markers);
  const calls: ToolCallRecord[] = pairing.calls.map(({ start, end }, i) => {
    const w = windowStats(samples, start.ts, end.ts);
    return {
      session_id: sessionId,
      seq: i + 1,
      call_key: start.call_key ?? '',
      tool_name: start.tool_name ?? end.tool_name ?? '',
      tool: start.tool ?? end.tool ?? 'other',
      command: start.command ?? end.command ?? '',
      start_ts: start.ts,
      end_ts: end.ts,
      duration_ms: round(end.ts - start.ts, 3),
      peak_memory_mb: w.peakMb === undefined ? null : round(w.peakMb, 3),
      avg_memory_mb: w.avgMb === undefined ? null : round(w.avgMb, 3),
      avg_cpu_pct: w.avgCpuPct === undefined ? null : round(w.avgCpuPct, 2),
      n_samples: w.n,
      exit_status: end.exit_status ?? null,
      exit_code: end.exit_code ?? null,
      hook_overhead_ms: start.hook_overhead_ms ?? null,
    };
  });
  const events = readSamplerEvents(dir);
  const bounds = sampledSpan(samples, events, markers);
  const firstSample = samples[0]?.t;
  const lastSample = samples[samples.length - 1]?.t;
  const span = bounds ? bounds.end - bounds.start : 0;
  const windows = calls.map((c) => [c.start_ts, c.end_ts] as const);
  const clipped = bounds === undefined ? [] : windows.map(([a, b]) => [Math.max(a, bounds.start), Math.min(b, bounds.end)] as const);
  const mems = samples.map((s) => s.mem_mb).sort((a, b) => a - b);
  let firstTs = Infinity;
  let lastTs = -Infinity;
  for (const m of markers) {
    if (m.ts < firstTs) firstTs = m.ts;
    if (m.ts > lastTs) lastTs = m.ts;
  }
  if (firstSample !== undefined && firstSample < firstTs) firstTs = firstSample;
  if (lastSample !== undefined && lastSample > lastTs) lastTs = lastSample;
  const summary: SessionSummary = {
    session_id: sessionId,
    dir,
    agent: markers.find((m) => m.agent)?.agent ?? null,
    first_ts: Number.isFinite(firstTs) ? firstTs : null,
    last_ts: Number.isFinite(lastTs) ? lastTs : null,
    ended: markers.some((m) => m.event === 'session_end'),
    n_markers: markers.length,
    bad_markers: badLines.length,
    n_samples: samples.length,
    bad_samples: sampled.badLines.length,
    n_toolcalls: calls.length,
    unpaired_starts: pairing.unpairedStarts.length,
    orphan_ends: pairing.orphanEnds.length,
    denied_calls: markers.filter((m) => m.event === 'tool_denied').length,
    short_calls: calls.filter((c) => c.n_samples === 0).length,
    partial_samples: samples.filter((s) => s.partial).length,
    span_ms: round(span, 3),
    span_start_ts: bounds?.start ?? null,
    span_end_ts: bounds?.end ?? null,
    live,
    tool_time_ms: round(unionLength(windows), 3),
    tool_time_fraction: span > 0 ? round(unionLength(clipped) / span, 4) : null,
    baseline_memory_mb: mems.length ? mems[Math.floor(0.1 * mems.length)]! : null,
    peak_memory_mb: mems.length ? mems[mems.length - 1]! : null,
    avg_memory_mb: mems.length ? round(mems.reduce((a, b) => a + b, 0) / mems.length, 3) : null,
    avg_cpu_pct: samples.length ? round(samples.reduce((a, s) => a + s.cpu_pct, 0) / samples.length, 2) : null,
    sampler_starts: events.filter((e) => e.event === 'start').length,
    sampler_stop_reasons: events.filter((e) => e.event === 'stop').map((e) => String(e.reason)),
    hook_ms: round(markers.reduce((a, m) => a + (typeof m.hook_overhead_ms === 'number' && Number.isFinite(m.hook_overhead_ms) && m.hook_overhead_ms >= 0 ? m.hook_overhead_ms : 0), 0), 3),
    sampler_cpu_ms: samplerCpuMs(events),
    loops_broken: markers.filter((m) => m.event === 'tool_end' && typeof m.loop_failures === 'number' && m.loop_repeat !== true).length,
  };
  return { summary, calls, samples };
}

/** Σ of the samplers' own CPU over their `stop` events, ms; `null` without a stop that tells it. */
function samplerCpuMs(events: ReadonlyArray<SamplerEventLine>): number | null {
  let total: number | null = null;
  for (const e of events) {
    if (e.event !== 'stop') continue;
    let ms: number | undefined;
    if (typeof e.self_cpu_ms === 'number' && Number.isFinite(e.self_cpu_ms)) ms = e.self_cpu_ms;
    else if (typeof e.self_cpu_pct === 'number' && typeof e.t === 'number') {
      // Older samplers logged only a percentage: over the time since their own start event.
      const start = events.find((s) => s.event === 'start' && s.pid === e.pid && s.generation === e.generation);
      if (start && typeof start.t === 'number') ms = (e.self_cpu_pct / 100) * (e.t - start.t);
    }
    if (ms !== undefined && ms >= 0) total = (total ?? 0) + ms;
  }
  return total === null ? null : round(total, 3);
}

/**
 * The sampled span of a session with samples (sorted by `t`): see {@link SessionSummary.span_ms}.
 * `undefined` without samples.
 */
export function sampledSpan(samples: readonly Sample[], events: readonly SamplerEventLine[], markers: readonly Marker[]): { start: number; end: number } | undefined {
  if (samples.length === 0) return undefined;
  const first = samples[0]!.t;
  const last = samples[samples.length - 1]!.t;
  let start = first;
  // The sampler that wrote the first sample: the latest to start before it.
  let opener: SamplerEventLine | undefined;
  for (const e of events) if (e.event === 'start' && typeof e.t === 'number' && e.t <= first && (!opener || e.t >= opener.t!)) opener = e;
  if (opener && typeof opener.since === 'number' && Number.isFinite(opener.since) && opener.since < first) start = opener.since;
  let end = last;
  // The sampler that wrote the last sample: the first to stop after it.
  let closer: SamplerEventLine | undefined;
  for (const e of events) if (e.event === 'stop' && typeof e.t === 'number' && e.t >= last && (!closer || e.t < closer.t!)) closer = e;
  if (closer) {
    // A sampler that stopped because the agent exited saw that exit by its stop: a session end
    // written later (the recorder was slower to run than the sampler's tick) ended there at the latest.
    const bound = closer.reason === 'agent-exit' ? Infinity : closer.t!;
    for (const m of markers) if (m.event === 'session_end' && m.ts > last && m.ts <= bound) end = Math.max(end, Math.min(m.ts, closer.t!));
  }
  return { start, end };
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
