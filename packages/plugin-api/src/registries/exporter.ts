/**
 * Session exporters (`api.exporters`): `cordon export` reads the reduced sessions from the
 * telemetry store and hands them to the exporter the user chose; the exporter encodes and sends
 * them. The host owns selecting and reducing sessions, the store and the printing; an exporter
 * owns its wire format, so a heavy library (the OpenTelemetry SDK of `@cordon/otlp`) is carried
 * only by those who install it.
 *
 * The rows are those of the telemetry store (docs/ARCHITECTURE.md "Data"): times epoch ms,
 * memory MiB, CPU % of one core, booleans 0/1, `null` where nothing was measured.
 */

/** One reduced session (a row of the `sessions` table). */
export interface StoredSession {
  session_id: string;
  /** The machine that reduced it (host name or `CORDON_MACHINE`; '' for rows older than migration 0002). */
  machine: string;
  /** Sanitised directory name under `<dataDir>/runs`. */
  dir_name: string;
  agent: string | null;
  /** When `cordon reduce` last wrote this row, epoch ms. */
  reduced_at: number;
  first_ts: number | null;
  last_ts: number | null;
  ended: number;
  n_markers: number;
  bad_markers: number;
  n_samples: number;
  bad_samples: number;
  n_toolcalls: number;
  unpaired_starts: number;
  orphan_ends: number;
  denied_calls: number;
  short_calls: number;
  partial_samples: number;
  span_ms: number;
  tool_time_ms: number;
  tool_time_fraction: number | null;
  baseline_memory_mb: number | null;
  peak_memory_mb: number | null;
  avg_memory_mb: number | null;
  avg_cpu_pct: number | null;
  sampler_starts: number;
  /** JSON array of stop reasons. */
  sampler_stop_reasons: string;
  /** Σ `hook_overhead_ms` over the session's markers (`null` for rows older than migration 0003). */
  hook_ms: number | null;
  /** The session's samplers' own CPU, user + system, ms (`null` when unknown or for older rows). */
  sampler_cpu_ms: number | null;
  /** Loops the loop breaker broke in the session (`null` for rows older than migration 0004). */
  loops_broken: number | null;
  /** The sampled span's start and end, epoch ms (`null` without samples, and for rows older than migration 0005: their span ran from the first to the last sample). */
  span_start_ts: number | null;
  span_end_ts: number | null;
  /** 1 when a sampler was still writing the session when it was reduced (its numbers were partial); `null` for rows older than migration 0005. */
  live: number | null;
}

/** One paired tool call (a row of `tool_calls`). */
export interface StoredToolCall {
  session_id: string;
  /** As {@link StoredSession.machine}. */
  machine: string;
  seq: number;
  call_key: string;
  tool_name: string;
  tool: string;
  command: string;
  start_ts: number;
  end_ts: number;
  duration_ms: number;
  peak_memory_mb: number | null;
  avg_memory_mb: number | null;
  avg_cpu_pct: number | null;
  n_samples: number;
  exit_status: string | null;
  exit_code: number | null;
  hook_overhead_ms: number | null;
}

/** One sample, kept for burst-shape analysis (a row of `samples`). */
export interface StoredSample {
  session_id: string;
  /** As {@link StoredSession.machine}. */
  machine: string;
  seq: number;
  t: number;
  mem_mb: number;
  cpu_pct: number;
  n_procs: number;
  partial: number;
}

/** One stored session with its calls and samples, in call and sample order. */
export interface ExportSession {
  readonly session: StoredSession;
  readonly calls: readonly StoredToolCall[];
  readonly samples: readonly Pick<StoredSample, 't' | 'mem_mb' | 'cpu_pct' | 'n_procs'>[];
}

/** Where and how long to send. */
export interface ExportOptions {
  /** The receiver's base URL, normalised (credentials included: never print it). */
  readonly url: string;
  /** `url` as messages may show it: credentials and secret query values replaced, no trailing `/`. */
  readonly shownUrl: string;
  /** Per request, ms. */
  readonly timeoutMs: number;
  /** `text` (e.g. an error from the network stack) with every secret part of `url` replaced. */
  readonly redact: (text: string) => string;
}

/** What an exporter sent, and what the receiver said it rejected. */
export interface ExportSummary {
  readonly sessions: number;
  readonly spans: number;
  readonly data_points: number;
  /** Spans the receiver rejected (OTLP `partialSuccess.rejectedSpans`, summed over requests). */
  readonly rejected_spans: number;
  /** Metric points the receiver rejected (`partialSuccess.rejectedDataPoints`). */
  readonly rejected_data_points: number;
  /**
   * The receiver's rejection messages, each at most 500 characters as the receiver wrote them. The
   * host escapes them for a terminal (every control character as `\uXXXX`) before they are shown
   * or printed as JSON.
   */
  readonly rejection_messages: readonly string[];
}

/** A registered exporter. */
export interface ExporterEntry {
  /** Format name, the value of `cordon export --format` (e.g. `otlp`). */
  readonly name: string;
  /** Sends `sessions`; throws an Error whose message names the receiver (redacted) when it fails or refuses. */
  readonly export: (sessions: readonly ExportSession[], options: ExportOptions) => Promise<ExportSummary>;
}
