import type { StoredSample, StoredSession, StoredToolCall } from '@cordon/plugin-api';

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

/** One reduced session; the row type is defined in @cordon/plugin-api, which hands it to exporters. */
export type SessionRow = StoredSession;
/** One paired tool call ({@link ToolCallRecord}). */
export type ToolCallRow = StoredToolCall;
/** One sample, kept for burst-shape analysis. */
export type SampleRow = StoredSample;
