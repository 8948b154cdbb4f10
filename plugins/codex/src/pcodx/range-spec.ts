import type { LedgerRangeRequest } from '@cordon/plugin-api';
import { PcodxUsageError } from './errors.js';

/**
 * Parses one `compact-many --range` value, `FROM..TO=SUMMARY` (the Rust pcodx, SichangHe/partial_compact_codex):
 * split at the first `=` (so summaries may hold `=` and `..`), then the bounds at the first `..`.
 * Endpoints are trimmed (ids hold no spaces); the summary is kept exactly.
 */
export function parseRangeSpec(spec: string): LedgerRangeRequest {
  const eq = spec.indexOf('=');
  if (eq < 0) throw new PcodxUsageError(`compact-many range must be FROM..TO=SUMMARY (got ${JSON.stringify(spec)})`);
  const bounds = spec.slice(0, eq);
  const summary = spec.slice(eq + 1);
  const dots = bounds.indexOf('..');
  if (dots < 0) throw new PcodxUsageError(`compact-many range must be FROM..TO=SUMMARY, with \`..\` between FROM and TO (got ${JSON.stringify(spec)})`);
  const from = bounds.slice(0, dots).trim();
  const to = bounds.slice(dots + 2).trim();
  if (from === '' || to === '') throw new PcodxUsageError(`compact-many range must include FROM and TO (got ${JSON.stringify(spec)})`);
  if (summary === '') throw new PcodxUsageError(`compact-many range must include FROM, TO, and SUMMARY (got ${JSON.stringify(spec)})`);
  return { from, to, summary };
}
