/**
 * Table shapes of the ledger database as kysely sees them (the Rust pcodx, SichangHe/partial_compact_codex, plus
 * `sessions.last_compaction_seq` and `compactions.superseded_by`, which make `uncompact` an undo
 * whose ids are never reused). Integers are JavaScript numbers; times are Unix epoch ms.
 */

export interface SchemaMetaTable {
  key: string;
  value: string;
}

export interface SessionsTable {
  id: string;
  cwd: string;
  created_at_ms: number;
  updated_at_ms: number;
  /** Ledger-wide write order; `--last` picks the highest. */
  updated_order: number;
  usage_correlation_id: string;
  upstream_session_id: string | null;
  kv_cache_boundary: string;
  /** Highest compaction seq ever handed out in this session; ids continue above it. */
  last_compaction_seq: number;
}

export interface MessagesTable {
  session_id: string;
  id: string;
  seq: number;
  role: string;
  text: string;
  source: string | null;
  created_at_ms: number;
  /** 1 when role is user. */
  is_human_prompt: number;
  /** 1 when role is system, developer or user (the Rust pcodx, SichangHe/partial_compact_codex step 8). */
  preserve_warning: number;
}

export interface CompactionsTable {
  session_id: string;
  id: string;
  seq: number;
  from_msg_id: string;
  to_msg_id: string;
  from_seq: number;
  to_seq: number;
  summary: string;
  created_at_ms: number;
  n_messages_replaced: number;
  /** Null while active; the id of the compaction that covers it otherwise (it returns on uncompact). */
  superseded_by: string | null;
}

/** The ledger database for `Kysely<LedgerSchema>`. */
export interface LedgerSchema {
  schema_meta: SchemaMetaTable;
  sessions: SessionsTable;
  messages: MessagesTable;
  compactions: CompactionsTable;
}
