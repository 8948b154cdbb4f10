/**
 * Tables of the telemetry database (`<dataDir>/telemetry.sqlite3`), as kysely sees them. Times
 * are epoch ms (double), memory MiB, CPU % of one core; booleans are 0/1 integers so the schema
 * stays portable to PostgreSQL (docs/ARCHITECTURE.md "Data").
 */
export interface TelemetrySchema {
  sessions: SessionRow;
  tool_calls: ToolCallRow;
  samples: SampleRow;
}

/** One reduced session (the {@link SessionSummary} columns). */
export interface SessionRow {
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
}

/** One paired tool call ({@link ToolCallRecord}). */
export interface ToolCallRow {
  session_id: string;
  /** As {@link SessionRow.machine}. */
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

/** One sample, kept for burst-shape analysis (uncoalesced/cordon keeps the raw window samples). */
export interface SampleRow {
  session_id: string;
  /** As {@link SessionRow.machine}. */
  machine: string;
  seq: number;
  t: number;
  mem_mb: number;
  cpu_pct: number;
  n_procs: number;
  partial: number;
}
