/**
 * The partial-compaction ledger as lent to plugins (`api.services.ledger`). The host owns the
 * storage (kysely over better-sqlite3, the Rust pcodx, SichangHe/partial_compact_codex); plugins such as the
 * `cordon pcodx` commands and the Codex proxy only see these shapes.
 *
 * Errors thrown by every method are host `CordonError`s; plugins tell them apart by `code`:
 * - `CORDON_LEDGER_REFUSED`: the request broke a ledger rule (unknown session, endpoint not
 *   visible, reversed range, tool group split, overlap; the Rust pcodx, SichangHe/partial_compact_codex). Nothing was written.
 * - `CORDON_PLUGIN_ERROR`: a tap on the host `compact` hook refused the plan. Nothing was written.
 * - `CORDON_DB_ERROR`: the database could not be opened or written (corrupt file, newer schema,
 *   native module built for another Node.js). Nothing was written.
 */

/** Who said a message (the Rust pcodx, SichangHe/partial_compact_codex `messages.role`). */
export type LedgerRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

/** One conversation in the ledger. Times are Unix epoch milliseconds. */
export interface LedgerSession {
  /** User-chosen name, or a generated `ses<hex ms>-<pid>`. */
  readonly id: string;
  /** Absolute working directory the session belongs to. */
  readonly cwd: string;
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
  /** Position in the ledger-wide write order; `--last` picks the highest (never timestamps). */
  readonly updatedOrder: number;
  /** `pcses-` + 32 lowercase hex characters; the only session name a usage log may carry. */
  readonly usageCorrelationId: string;
}

/** One stored message. Its text is exactly what was recorded, byte for byte. */
export interface LedgerMessage {
  /** `msg<seq>`. */
  readonly id: string;
  /** 1-based position in its session. */
  readonly seq: number;
  readonly role: LedgerRole;
  readonly text: string;
  /** Where it came from (`cli-turn`, `cli-resume`, `cli-interactive`, `codex-app-server:<thread>:<turn>` …), or null. */
  readonly source: string | null;
  readonly createdAtMs: number;
  /**
   * Set by `record` only: the compaction this message joined as it was stored. A tool result
   * whose call is already inside a compaction joins that compaction (and the ones nested in it
   * that end at the same message), so the render never shows a result without its call.
   */
  readonly attachedTo?: string;
}

/** An active compaction: a summary standing in for messages `fromSeq..toSeq` (inclusive). */
export interface LedgerCompaction {
  /** `cmp<n>`; never reused within a session, even after `uncompact`. */
  readonly id: string;
  readonly seq: number;
  /** Always message ids, even when the request named `cmp` endpoints. */
  readonly fromMessageId: string;
  readonly toMessageId: string;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly summary: string;
  /** `toSeq - fromSeq + 1`. */
  readonly nMessagesReplaced: number;
  readonly createdAtMs: number;
}

/** One entry of the model-visible view (the Rust pcodx, SichangHe/partial_compact_codex): a message, or a compaction in its place. */
export type VisibleEntry =
  | { readonly kind: 'message'; readonly id: string; readonly role: LedgerRole; readonly text: string; readonly message: LedgerMessage }
  | {
      readonly kind: 'compaction';
      readonly id: string;
      /** The strongest role it covers: system > developer > user > assistant (tool counts as assistant). */
      readonly role: Exclude<LedgerRole, 'tool'>;
      readonly text: string;
      readonly compaction: LedgerCompaction;
    };

/** A Responses API input item for one visible entry (the role-aware render for model input). */
export interface LedgerModelItem {
  readonly type: 'message';
  readonly role: 'system' | 'developer' | 'user' | 'assistant';
  readonly content: ReadonlyArray<{ readonly type: 'input_text' | 'output_text'; readonly text: string }>;
}

/** A message to record. */
export interface LedgerRecordInput {
  readonly role: LedgerRole;
  /** Stored exactly; must be non-empty. */
  readonly text: string;
  readonly source?: string | null;
}

/** One requested range: visible endpoints (`msgN` or `cmpN`), inclusive, and its summary. */
export interface LedgerRangeRequest {
  readonly from: string;
  readonly to: string;
  readonly summary: string;
}

/** What one stored (or, under `dryRun`, would-be) compaction replaced, in request order. */
export interface LedgerCompactedRange {
  /** The new compaction's id. */
  readonly id: string;
  /** Endpoints as requested (may be `cmp` ids). */
  readonly from: string;
  readonly to: string;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly nMessagesReplaced: number;
  /** Earlier compactions this one covers (they stay on record and return on `uncompact`). */
  readonly supersedes: readonly string[];
  /** Set when the range holds system, developer or user messages (the Rust pcodx, SichangHe/partial_compact_codex step 8). */
  readonly warning?: string;
}

/** Result of {@link LedgerHandle.compact}. */
export interface LedgerCompactResult {
  readonly sessionId: string;
  /** False under `dryRun`: nothing was stored. */
  readonly stored: boolean;
  readonly ranges: readonly LedgerCompactedRange[];
  /** Sum of `nMessagesReplaced` over this call's ranges. */
  readonly nMessagesReplaced: number;
  /** Visible ids after the operation. */
  readonly visibleIds: readonly string[];
  /** Active compactions after the operation. */
  readonly activeCompactions: number;
  /** Sum of `nMessagesReplaced` over the active compactions after the operation. */
  readonly totalKnownMessagesReplaced: number;
  /** The render after the operation (the Rust pcodx, SichangHe/partial_compact_codex); present under `dryRun` only. */
  readonly render?: string;
}

/** Result of {@link LedgerHandle.uncompact}. */
export interface LedgerUncompactResult {
  readonly sessionId: string;
  readonly compactionId: string;
  /** Messages that are visible again (not counting those still inside reinstated compactions). */
  readonly nMessagesRestored: number;
  /** Compactions the removed one had covered, active again. */
  readonly reinstated: readonly string[];
  readonly visibleIds: readonly string[];
}

/**
 * Takes one piece of a streamed read (`renderTo`, `renderWithRolesTo`, `visibleIdsTo`), in order.
 * A promise returned (a full pipe) is awaited before the next piece is read; `false` returned or
 * resolved (the reader has gone: `writeOutput` says so) ends the read there, quietly.
 */
export type LedgerPieceWriter<T> = (piece: T) => void | boolean | Promise<void | boolean>;

/** How a command finds its session (the Rust pcodx, SichangHe/partial_compact_codex). */
export interface LedgerSessionSelector {
  /** An explicit session name (`--session`). */
  readonly id?: string;
  /**
   * `create`: upsert `id` (refreshing its cwd), else use the last-written session, else make a
   * new one (init, record, turn, interactive). `existing`: `id` must exist, else the
   * last-written session, else refuse with "no session; run `cordon pcodx init` first".
   */
  readonly mode: 'create' | 'existing';
  /** Absolute cwd for a created or upserted session (default: the process cwd). */
  readonly cwd?: string;
}

/** An open ledger database. Close it when done. */
export interface LedgerHandle {
  /** Absolute path of the SQLite file. */
  readonly path: string;
  /** Finds or creates the session a command works on. */
  resolveSession(selector: LedgerSessionSelector): Promise<LedgerSession>;
  /** The session, or undefined. */
  getSession(id: string): Promise<LedgerSession | undefined>;
  /** The most recently written session by write order, or undefined. */
  lastSession(): Promise<LedgerSession | undefined>;
  /** Every session, the last-written first (highest write order). */
  sessions(): Promise<LedgerSession[]>;
  /**
   * Appends messages in one transaction (all or none) and returns them with their ids. A `tool`
   * message must follow an `assistant` message (its call) or another `tool` message; one whose
   * call is hidden in a compaction joins that compaction (`attachedTo`).
   */
  record(sessionId: string, messages: readonly LedgerRecordInput[]): Promise<LedgerMessage[]>;
  /** The visible entries (the Rust pcodx, SichangHe/partial_compact_codex), in order. */
  visible(sessionId: string): Promise<VisibleEntry[]>;
  /** Just the ids of {@link visible}, without reading any text. */
  visibleIds(sessionId: string): Promise<string[]>;
  /**
   * {@link visibleIds} handed to `write` in order, in arrays of a few thousand ids (none empty),
   * from one snapshot, so a caller that prints them never holds them all; a `write` that returns a
   * promise is awaited before the next piece. An unknown session is refused before anything is written.
   */
  visibleIdsTo(sessionId: string, write: LedgerPieceWriter<readonly string[]>): Promise<void>;
  /** The exact text render of the Rust pcodx, SichangHe/partial_compact_codex (no trailing newline). */
  render(sessionId: string): Promise<string>;
  /**
   * {@link render} handed to `write` in order, in pieces (a few hundred KiB each), all read in
   * one snapshot, so a caller that writes them out never holds the whole render. A `write` that
   * returns a promise (a full pipe) is awaited before the next piece is read; one that returns
   * (or resolves to) `false` ends the render there (the reader has gone). An unknown
   * session is refused before anything is written.
   */
  renderTo(sessionId: string, write: LedgerPieceWriter<string>): Promise<void>;
  /** The render with a role line above each block, for people (`show --roles`). */
  renderWithRoles(sessionId: string): Promise<string>;
  /**
   * {@link renderWithRoles} handed to `write` in order, in pieces (a few hundred KiB each), all
   * read in one snapshot, `write` awaited as by {@link renderTo}. An unknown session is refused before anything is written.
   */
  renderWithRolesTo(sessionId: string, write: LedgerPieceWriter<string>): Promise<void>;
  /** One Responses API message item per visible entry; refuses visible `tool` rows. */
  modelItems(sessionId: string): Promise<LedgerModelItem[]>;
  /** Active compactions in sequence order. */
  compactions(sessionId: string): Promise<LedgerCompaction[]>;
  /**
   * Validates the ranges (the Rust pcodx, SichangHe/partial_compact_codex), fires the host `compact` hook with the plan (a tap may
   * amend or refuse it), re-validates and stores every range in one transaction: all or none.
   * With `dryRun` nothing is stored and the result shows what would be; the hook still fires,
   * so the preview includes what taps make of the plan.
   */
  compact(sessionId: string, ranges: readonly LedgerRangeRequest[], options?: { readonly dryRun?: boolean }): Promise<LedgerCompactResult>;
  /** Removes an active compaction; the entries it covered are visible again. Its id is not reused. */
  uncompact(sessionId: string, compactionId: string): Promise<LedgerUncompactResult>;
  close(): Promise<void>;
}

/** Where the ledger lives and how to open it (`api.services.ledger`). */
export interface LedgerService {
  /**
   * The database path: `db` (a `--db` flag), else `$PCODX_DB`, else
   * `$XDG_DATA_HOME/pcodx/pcodx.sqlite3`, else the platform default (the Rust pcodx, SichangHe/partial_compact_codex).
   */
  resolvePath(options?: { readonly db?: string; readonly env?: Readonly<Record<string, string | undefined>> }): string;
  /**
   * Opens (creating parent directories, the file and the schema as needed) the ledger. With
   * `create: false` only an existing ledger is opened: a missing or empty file is refused with
   * `CORDON_LEDGER_REFUSED` and nothing is created. A file that is not a ledger, or whose stored
   * rows break the ledger's invariants, is refused with `CORDON_DB_ERROR` and left unchanged; one
   * the reference pcodx wrote (its schema version 1) is upgraded in one transaction.
   */
  open(options?: { readonly db?: string; readonly env?: Readonly<Record<string, string | undefined>>; readonly create?: boolean }): Promise<LedgerHandle>;
  /**
   * Appends one record as a JSON line to the pcodx usage log (the Rust pcodx, SichangHe/partial_compact_codex) and
   * returns the log's path: `usageLog` (a `--usage-log` flag), else `$PCODX_USAGE_LOG`, else
   * `dbPath` with its extension replaced by `.usage.jsonl`. The file is created 0600; a file open
   * to group or others, a symbolic link, a non-regular file or the database itself is refused
   * with `CORDON_USAGE_LOG_REFUSED` and nothing is written. One `O_APPEND` write per line (no
   * interleaving between writers); a torn last line is ended before the new one. The record must
   * hold no conversation text, ids or paths: the caller chooses its fields.
   */
  appendUsage(record: Readonly<Record<string, unknown>>, options: { readonly usageLog?: string; readonly dbPath: string; readonly env?: Readonly<Record<string, string | undefined>> }): string;
  /**
   * The usage log's path after the same checks as {@link appendUsage} (and that its missing
   * directories could be made), writing nothing and creating no directory: refuse before a turn
   * that could not be logged.
   */
  checkUsageLog(options: { readonly usageLog?: string; readonly dbPath: string; readonly env?: Readonly<Record<string, string | undefined>> }): string;
  /**
   * Refuses (`CORDON_BAD_INPUT`, exit 2, naming `--session`; the same error as `resolveSession`) a
   * session name the ledger would refuse: 1-200 characters without control characters. Opens
   * nothing, so a command can refuse a bad `--session` before it creates a ledger. An unknown
   * session is another error: `resolveSession`'s `CORDON_LEDGER_REFUSED`, exit 1.
   */
  checkSessionName(name: string): void;
}
