/**
 * The partial-compaction event: fired on `compact` with the plan before it is stored
 * (the Rust pcodx, SichangHe/partial_compact_codex). A tap returns an amended plan, or throws to refuse it.
 */

/** One range of visible entries to be replaced by a summary. */
export interface CompactionRange {
  /** First visible entry covered: a message id (`msgN`) or a compaction id (`cmpN`). */
  readonly from: string;
  /** Last visible entry covered, inclusive. */
  readonly to: string;
  /** Summary text that replaces the range. */
  readonly summary: string;
}

/** A whole compaction request, applied in one transaction. */
export interface CompactionPlan {
  /** Ledger session id. */
  readonly sessionId: string;
  /** Ranges in request order. */
  readonly ranges: readonly CompactionRange[];
  /** Warnings produced by validation (e.g. a range holds user messages). */
  readonly warnings: readonly string[];
}
