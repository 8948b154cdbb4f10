import type { LedgerRole } from '@cordon/plugin-api';
import type BetterSqlite3 from 'better-sqlite3';
import { ABOVETURN_CLOSE, ABOVETURN_OPEN, BLOCK_SEPARATOR } from './render.js';

/** One visible message as {@link SessionReads.messageRows} returns it. */
export type MessageRow = [id: string, seq: number, role: LedgerRole, text: string, source: string | null, createdAtMs: number];

/**
 * The ledger's reads whose cost grows with the session, as statements prepared once per
 * connection and run on the raw better-sqlite3 handle (inside the caller's kysely transaction:
 * same connection, same snapshot). Each returns a few large values rather than a value per row:
 * at 100,000 messages a JavaScript string and row array per message cost more (allocation and
 * garbage collection) than the database's own work.
 *
 * Ordering: each aggregate reads a subquery ordered by `seq` through the `(session_id, seq…)`
 * index. SQLite keeps a FROM-subquery's ORDER BY when the outer query uses an aggregate other
 * than count/min/max (sqlite3.c, select.c "tag-select-0230", condition 4), so `group_concat`
 * sees the rows in seq order without a sort; the tests check the bytes on real files.
 */
export class SessionReads {
  readonly #raw: BetterSqlite3.Database;
  #renderRun?: BetterSqlite3.Statement;
  #roleRenderRun?: BetterSqlite3.Statement;
  #roleCodes?: BetterSqlite3.Statement;
  #messageRows?: BetterSqlite3.Statement;

  constructor(raw: BetterSqlite3.Database) {
    this.#raw = raw;
  }

  /**
   * The render blocks of messages `fromSeq..toSeq` (`text\n<aboveturn id="msgN"/>`) joined by one
   * blank line, built by SQLite as one string; '' when the range holds no message.
   */
  renderRun(sessionId: string, fromSeq: number, toSeq: number): string {
    this.#renderRun ??= this.#raw
      .prepare(
        `select group_concat(block, ?) from (
           select text || ? || id || ? as block from messages where session_id = ? and seq >= ? and seq <= ? order by seq)`,
      )
      .pluck();
    return (this.#renderRun.get(BLOCK_SEPARATOR, ABOVETURN_OPEN, ABOVETURN_CLOSE, sessionId, fromSeq, toSeq) as string | null) ?? '';
  }

  /**
   * {@link renderRun} with each block under its `[role]` line (`show --roles`): `[role]\ntext\n<aboveturn id="msgN"/>`
   * blocks joined by one blank line, built by SQLite as one string; '' when the range holds no message.
   */
  roleRenderRun(sessionId: string, fromSeq: number, toSeq: number): string {
    this.#roleRenderRun ??= this.#raw
      .prepare(
        `select group_concat(block, ?) from (
           select '[' || role || ?  || text || ? || id || ? as block from messages where session_id = ? and seq >= ? and seq <= ? order by seq)`,
      )
      .pluck();
    return (this.#roleRenderRun.get(BLOCK_SEPARATOR, ']\n', ABOVETURN_OPEN, ABOVETURN_CLOSE, sessionId, fromSeq, toSeq) as string | null) ?? '';
  }

  /**
   * One character per message with seq above `afterSeq`, in seq order: the first letter of its
   * role (`ROLE_CODE`). Read from the covering index `messages_session_seq_role` (schema
   * version 2), so no message text is touched: about 10 ms at 100,000 messages.
   */
  roleCodes(sessionId: string, afterSeq = 0): string {
    this.#roleCodes ??= this.#raw
      .prepare(`select group_concat(code, '') from (select substr(role, 1, 1) as code from messages where session_id = ? and seq > ? order by seq)`)
      .pluck();
    return (this.#roleCodes.get(sessionId, afterSeq) as string | null) ?? '';
  }

  /** Messages `fromSeq..toSeq` as row arrays in seq order (for entries that need each message). */
  messageRows(sessionId: string, fromSeq: number, toSeq: number): MessageRow[] {
    this.#messageRows ??= this.#raw.prepare(`select id, seq, role, text, source, created_at_ms from messages where session_id = ? and seq >= ? and seq <= ? order by seq`).raw();
    return this.#messageRows.all(sessionId, fromSeq, toSeq) as MessageRow[];
  }
}
