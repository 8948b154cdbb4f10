import { resolve } from 'node:path';
import type {
  CompactionPlan,
  LedgerCompaction,
  LedgerCompactResult,
  LedgerHandle,
  LedgerMessage,
  LedgerModelItem,
  LedgerPieceWriter,
  LedgerRangeRequest,
  LedgerRecordInput,
  LedgerRole,
  LedgerSession,
  LedgerSessionSelector,
  LedgerUncompactResult,
  VisibleEntry,
} from '@cordon/plugin-api';
import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { randomHex } from '../util/random.js';
import { asLedgerError, refused, unknownSession } from './errors.js';
import { checkSessionName, compactionId, generateSessionId, messageId } from './ids.js';
import { openLedgerDatabase, type OpenDatabaseOptions } from './open.js';
import { SessionReads } from './reads.js';
import { BLOCK_SEPARATOR, compactionRoleLine, renderBlock, renderModelItems } from './render.js';
import type { LedgerSchema } from './schema.js';
import { PRESERVE_ROLES, renderLayout, ROLES, strongestRole, visibleIdPieces, visibleIdsFromSeqs, type LedgerOutline } from './state.js';
import { readTransaction, Rollback, writeTransaction } from './transaction.js';
import { validateCompaction } from './validate.js';
import { mark } from '../util/timeline.js';

type Db = Kysely<LedgerSchema>;

/** Options of {@link Ledger.open}. */
export interface LedgerOpenOptions extends OpenDatabaseOptions {
  /** Absolute database path (see `resolveLedgerPath`). */
  readonly path: string;
  /**
   * Called with each compaction plan after validation and before storing: returns the plan to
   * store (possibly amended; it is validated again) or throws to refuse it. The host passes
   * `hooks.compact.promise` here (docs/ARCHITECTURE.md "The hook bus").
   */
  readonly beforeStore?: (plan: CompactionPlan) => Promise<CompactionPlan>;
}

/** The outline of a session that does not exist (validation refuses it before looking). */
const EMPTY_OUTLINE: LedgerOutline = { maxSeq: 0, roleCodes: '', compactions: [] };

/** The reference pcodx's `schema_meta` key: the write order it had reached when it began recording one. */
const LEGACY_FENCE_KEY = 'session_write_order_legacy_fence';

/**
 * How much text one piece of a streamed render (`renderTo`) aims at, in characters. Each piece
 * passes through buffers of its own size (SQLite's `group_concat`, the V8 string, the bytes
 * written); kept under the 128 KiB where malloc and V8 switch to fresh mappings per block, they
 * come from memory already in use. At 2,000 messages (about 400 KiB) per piece a 100,000-message
 * render took 18,700 page faults (500 ms on a VM where each costs 25 µs); at about 32 KiB, 1,300
 * (90 ms; 64 KiB and 16 KiB took more).
 */
export const RENDER_PIECE_CHARS = 32 * 1024;

/**
 * Most messages in one piece of a streamed render, however short they are: a block is at least
 * about 32 characters (the text, `<aboveturn id="msgN"/>` and the blank line), so about
 * {@link RENDER_PIECE_CHARS} of the shortest blocks.
 */
const RENDER_PIECE_MESSAGES = 1_024;

/** Messages in a render's first piece, before a piece's size has been seen. */
const RENDER_FIRST_PIECE_MESSAGES = 64;

/**
 * The messages of the next render piece, from the last piece's: scaled so it holds about
 * {@link RENDER_PIECE_CHARS} characters if its messages are as long as the last piece's were,
 * between 1 and {@link RENDER_PIECE_MESSAGES}.
 */
function nextPieceMessages(messages: number, chars: number): number {
  if (chars <= 0) return RENDER_PIECE_MESSAGES;
  return Math.max(1, Math.min(RENDER_PIECE_MESSAGES, Math.floor((messages * RENDER_PIECE_CHARS) / chars)));
}

/** Largest number of rows one INSERT carries (keeps well under SQLite's bound-parameter limit). */
const INSERT_CHUNK = 500;

/**
 * The partial-compaction ledger over one SQLite file (the Rust pcodx, SichangHe/partial_compact_codex): sessions,
 * messages stored byte-exact and never changed, compactions that replace visible ranges by
 * summaries, the render, and the write order behind `--last`. Every write is one `BEGIN
 * IMMEDIATE` transaction, so concurrent processes get unique, gap-free `msgN` ids and a
 * compaction request lands whole or not at all. Errors: `CORDON_LEDGER_REFUSED` for requests
 * that break a rule, `CORDON_DB_ERROR` for the database itself, a `CordonPluginError` when a
 * `compact` tap refuses.
 */
export class Ledger implements LedgerHandle {
  readonly #db: Db;
  readonly #raw: BetterSqlite3.Database;
  readonly #reads: SessionReads;
  readonly #beforeStore?: (plan: CompactionPlan) => Promise<CompactionPlan>;

  private constructor(readonly path: string, db: Db, raw: BetterSqlite3.Database, beforeStore?: (plan: CompactionPlan) => Promise<CompactionPlan>) {
    this.#db = db;
    this.#raw = raw;
    this.#reads = new SessionReads(raw);
    this.#beforeStore = beforeStore;
  }

  /** Opens (creating as needed) the ledger at `options.path`; see `openLedgerDatabase` for the checks. */
  static async open(options: LedgerOpenOptions): Promise<Ledger> {
    const opened = await openLedgerDatabase(options.path, options);
    return new Ledger(options.path, opened.db, opened.raw, options.beforeStore);
  }

  async close(): Promise<void> {
    await this.#db.destroy();
    // Kysely closes the connection only if it ever used it; closing again is a no-op.
    this.#raw.close();
  }

  async getSession(id: string): Promise<LedgerSession | undefined> {
    return this.#guard(async () => {
      const row = await this.#db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toSession(row);
    });
  }

  /** Every session, the last-written first (highest write order; `cordon pcodx sessions`). */
  async sessions(): Promise<LedgerSession[]> {
    return this.#guard(async () => (await this.#db.selectFrom('sessions').selectAll().orderBy('updated_order', 'desc').orderBy('id').execute()).map(toSession));
  }

  /**
   * The session written last (highest write order). Refuses, as the reference pcodx does, when a
   * ledger upgraded from the reference still holds sessions whose write order it could not tell
   * (equal timestamps before it recorded one: `updated_order` 0) and nothing was written since
   * its `session_write_order_legacy_fence`: any of them may be the last.
   */
  async lastSession(): Promise<LedgerSession | undefined> {
    return this.#guard(async () => {
      const row = await this.#db.selectFrom('sessions').selectAll().orderBy('updated_order', 'desc').limit(1).executeTakeFirst();
      if (!row) return undefined;
      const fence = await this.#db.selectFrom('schema_meta').select('value').where('key', '=', LEGACY_FENCE_KEY).executeTakeFirst();
      if (fence !== undefined && Number(row.updated_order) <= Number(fence.value)) {
        const unordered = await this.#db.selectFrom('sessions').select('id').where('updated_order', '=', 0).limit(1).executeTakeFirst();
        if (unordered) throw refused('cannot tell which session was written last: this ledger came from the reference pcodx, which recorded no write order for sessions with equal timestamps; pass --session NAME');
      }
      return toSession(row);
    });
  }

  async resolveSession(selector: LedgerSessionSelector): Promise<LedgerSession> {
    return this.#guard(async () => {
      if (selector.id !== undefined) checkSessionName(selector.id);
      if (selector.mode === 'existing') {
        if (selector.id !== undefined) {
          const found = await this.getSession(selector.id);
          if (!found) throw refused(unknownSession(selector.id), { sessionId: selector.id });
          return found;
        }
        const last = await this.lastSession();
        if (!last) throw refused('no session; run `cordon pcodx init` first');
        return last;
      }
      if (selector.id === undefined) {
        const last = await this.lastSession();
        if (last) return last;
      }
      const id = selector.id ?? generateSessionId();
      const cwd = resolve(selector.cwd ?? process.cwd());
      return writeTransaction(this.#db, async (trx) => {
        const now = Date.now();
        const existing = await trx.selectFrom('sessions').select('id').where('id', '=', id).executeTakeFirst();
        if (existing) {
          await trx.updateTable('sessions').set({ cwd, updated_at_ms: now, updated_order: nextWriteOrder() }).where('id', '=', id).execute();
        } else {
          await trx
            .insertInto('sessions')
            .values({
              id,
              cwd,
              created_at_ms: now,
              updated_at_ms: now,
              updated_order: nextWriteOrder(),
              usage_correlation_id: `pcses-${randomHex(16)}`,
              upstream_session_id: null,
              kv_cache_boundary: 'future_turn_only',
              last_compaction_seq: 0,
            })
            .execute();
        }
        return toSession(await trx.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
      });
    });
  }

  /**
   * Appends `messages` to the session in one transaction (all or none): ids continue at
   * `msg<max seq + 1>`; text is stored exactly as given. Refuses an unknown session, an unknown
   * role or an empty text.
   */
  async record(sessionId: string, messages: readonly LedgerRecordInput[]): Promise<LedgerMessage[]> {
    return this.#guard(async () => {
      if (messages.length === 0) throw refused('provide at least one message to record');
      for (const m of messages) {
        if (!ROLES.includes(m.role)) throw refused(`unknown role \`${String(m.role)}\`; use ${ROLES.join(', ')}`, { role: m.role });
        if (typeof m.text !== 'string' || m.text.length === 0) throw refused('message text must be non-empty');
      }
      return writeTransaction(this.#db, async (trx) => {
        await requireSession(trx, sessionId);
        const last = await trx.selectFrom('messages').select(['seq', 'role']).where('session_id', '=', sessionId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
        const lastSeq = Number(last?.seq ?? 0);
        // A tool result needs its call before it (the Rust pcodx, SichangHe/partial_compact_codex: tool groups); without call ids,
        // "its call" is the assistant message that opens the run of tool messages it ends.
        let previous = last?.role as LedgerRole | undefined;
        for (const m of messages) {
          if (m.role === 'tool' && previous !== 'assistant' && previous !== 'tool') {
            throw refused(
              previous === undefined
                ? 'a tool message records the result of a call: record the assistant message that made the call first (the session has no messages yet)'
                : `a tool message records the result of a call: it must follow an assistant message or another tool message, and the message before it is a ${previous} message`,
              { role: 'tool', previousRole: previous ?? null },
            );
          }
          previous = m.role;
        }
        let seq = lastSeq;
        const now = Date.now();
        const stored: LedgerMessage[] = messages.map((m) => ({ id: messageId(++seq), seq, role: m.role, text: m.text, source: m.source ?? null, createdAtMs: now }));
        for (let i = 0; i < stored.length; i += INSERT_CHUNK) {
          const rows = stored.slice(i, i + INSERT_CHUNK).map((m) => ({
            session_id: sessionId,
            id: m.id,
            seq: m.seq,
            role: m.role,
            text: m.text,
            source: m.source,
            created_at_ms: now,
            is_human_prompt: m.role === 'user' ? 1 : 0,
            preserve_warning: PRESERVE_ROLES.has(m.role) ? 1 : 0,
          }));
          await trx.insertInto('messages').values(rows).execute();
        }
        const attachedTo = await attachLateResults(trx, sessionId, lastSeq, stored);
        await touch(trx, sessionId, now);
        mark('messages recorded');
        return attachedTo ? stored.map((m, i) => (i < attachedTo.count ? { ...m, attachedTo: attachedTo.id } : m)) : stored;
      });
    });
  }

  /**
   * The visible entries, reading only what is visible: the message rows between active
   * compactions, and for each compaction its role from the role index (no replaced rows).
   * Same entries as `visibleEntries` over the whole session.
   */
  async visible(sessionId: string): Promise<VisibleEntry[]> {
    return this.#guard(async () =>
      readTransaction(this.#db, async (trx) => {
        await requireSession(trx, sessionId);
        const layout = renderLayout(await maxSeq(trx, sessionId), await activeCompactions(trx, sessionId));
        let roleCodes: string | undefined;
        const entries: VisibleEntry[] = [];
        for (const s of layout) {
          if (s.kind === 'compaction') {
            roleCodes ??= this.#reads.roleCodes(sessionId);
            const c = s.compaction;
            entries.push({ kind: 'compaction', id: c.id, role: strongestRole(roleCodes, c.fromSeq, c.toSeq), text: c.summary, compaction: c });
            continue;
          }
          for (const [id, seq, role, text, source, createdAtMs] of this.#reads.messageRows(sessionId, s.from, s.to)) {
            entries.push({ kind: 'message', id, role, text, message: { id, seq, role, text, source, createdAtMs } });
          }
        }
        return entries;
      }),
    );
  }

  async visibleIds(sessionId: string): Promise<string[]> {
    return this.#guard(async () =>
      readTransaction(this.#db, async (trx) => {
        await requireSession(trx, sessionId);
        return visibleIdsFromSeqs(await maxSeq(trx, sessionId), await activeCompactions(trx, sessionId));
      }),
    );
  }

  /**
   * The text render without entry objects or a string per message: each run of visible messages
   * (between active compactions) comes back from SQLite as strings already formatted as blocks;
   * replaced messages are never read. Same bytes as `renderText(visible())`; this is the path
   * `show`, `turn` and the proxy take. The pieces of {@link renderTo}, joined.
   */
  async render(sessionId: string): Promise<string> {
    const pieces: string[] = [];
    await this.renderTo(sessionId, (piece) => void pieces.push(piece));
    return pieces.join('');
  }

  /**
   * {@link render} handed to `write` in order, in pieces of about {@link RENDER_PIECE_CHARS}
   * characters (whole messages, at most {@link RENDER_PIECE_MESSAGES}) or one compaction block,
   * all read in one snapshot: a caller that writes them out as they come (`pcodx show`) never
   * holds the whole render. An unknown session is refused (`CORDON_LEDGER_REFUSED`) before
   * anything is written.
   */
  async renderTo(sessionId: string, write: LedgerPieceWriter<string>): Promise<void> {
    return this.#guard(async () =>
      readTransaction(this.#db, async (trx) => {
        await requireSession(trx, sessionId);
        await this.#renderPieces(trx, sessionId, write);
        mark('render written');
      }),
    );
  }

  /** The pieces of {@link renderWithRolesTo}, joined: the same bytes as `renderWithRoles(visible())`. */
  async renderWithRoles(sessionId: string): Promise<string> {
    const pieces: string[] = [];
    await this.renderWithRolesTo(sessionId, (piece) => void pieces.push(piece));
    return pieces.join('');
  }

  /**
   * The render with a role line above each block (`show --roles`), handed to `write` in order in
   * pieces as {@link renderTo} hands the render: a run of messages comes from SQLite as strings
   * already formatted, a compaction's role comes from the role index. All read in one snapshot;
   * an unknown session is refused before anything is written.
   */
  async renderWithRolesTo(sessionId: string, write: LedgerPieceWriter<string>): Promise<void> {
    return this.#guard(async () =>
      readTransaction(this.#db, async (trx) => {
        await requireSession(trx, sessionId);
        await this.#renderPieces(trx, sessionId, write, true);
      }),
    );
  }

  /**
   * {@link visibleIds} handed to `write` in order, in arrays of a few thousand ids (none empty),
   * from one snapshot; an unknown session is refused before anything is written.
   */
  async visibleIdsTo(sessionId: string, write: LedgerPieceWriter<readonly string[]>): Promise<void> {
    const { last, active } = await this.#guard(async () =>
      readTransaction(this.#db, async (trx) => {
        await requireSession(trx, sessionId);
        return { last: await maxSeq(trx, sessionId), active: await activeCompactions(trx, sessionId) };
      }),
    );
    // The walk needs no database: the snapshot is the last seq and the active compactions.
    for (const piece of visibleIdPieces(last, active)) if ((await write(piece)) === false) return;
  }

  async modelItems(sessionId: string): Promise<LedgerModelItem[]> {
    return renderModelItems(await this.visible(sessionId));
  }

  async compactions(sessionId: string): Promise<LedgerCompaction[]> {
    return this.#guard(async () =>
      readTransaction(this.#db, async (trx) => {
        await requireSession(trx, sessionId);
        return activeCompactions(trx, sessionId);
      }),
    );
  }

  async compact(sessionId: string, requests: readonly LedgerRangeRequest[], options: { readonly dryRun?: boolean } = {}): Promise<LedgerCompactResult> {
    return this.#guard(async () => {
      const dryRun = options.dryRun === true;
      // Validate first so taps only ever see plans that can be stored.
      const before = await readTransaction(this.#db, async (trx) => {
        const session = await findSession(trx, sessionId);
        return { session, outline: session ? await this.#outline(trx, sessionId) : EMPTY_OUTLINE };
      });
      const checked = validateCompaction(sessionId, before.session !== undefined, before.outline, requests);
      let plan: CompactionPlan = {
        sessionId,
        ranges: requests.map((r) => ({ from: r.from, to: r.to, summary: r.summary })),
        warnings: checked.flatMap((r) => (r.warning ? [r.warning] : [])),
      };
      if (this.#beforeStore) plan = checkAmendedPlan(await this.#beforeStore(plan), sessionId);

      const run = async (trx: Db): Promise<LedgerCompactResult> => {
        const session = await findSession(trx, sessionId);
        // Again inside the write lock: another process may have written since. Stored messages
        // never change, so the roles read before still hold for the same session (same
        // correlation id, which is random per session); only messages recorded since are read.
        const same = session !== undefined && before.session?.usage_correlation_id === session.usage_correlation_id;
        const state = session ? await this.#outline(trx, sessionId, same ? before.outline : undefined) : EMPTY_OUTLINE;
        const ranges = validateCompaction(sessionId, session !== undefined, state, plan.ranges);
        let next = Number(session!.last_compaction_seq);
        const now = Date.now();
        const superseded = new Set<string>();
        const created: LedgerCompaction[] = [];
        const results = [];
        for (const r of ranges) {
          const id = compactionId(++next);
          const compaction: LedgerCompaction = {
            id,
            seq: next,
            fromMessageId: messageId(r.fromSeq),
            toMessageId: messageId(r.toSeq),
            fromSeq: r.fromSeq,
            toSeq: r.toSeq,
            summary: r.request.summary,
            nMessagesReplaced: r.toSeq - r.fromSeq + 1,
            createdAtMs: now,
          };
          if (r.supersedes.length > 0) {
            const ids = r.supersedes.map((c) => c.id);
            for (const c of ids) superseded.add(c);
            await trx.updateTable('compactions').set({ superseded_by: id }).where('session_id', '=', sessionId).where('id', 'in', ids).execute();
          }
          await trx
            .insertInto('compactions')
            .values({
              session_id: sessionId,
              id,
              seq: next,
              from_msg_id: compaction.fromMessageId,
              to_msg_id: compaction.toMessageId,
              from_seq: r.fromSeq,
              to_seq: r.toSeq,
              summary: compaction.summary,
              created_at_ms: now,
              n_messages_replaced: compaction.nMessagesReplaced,
              superseded_by: null,
            })
            .execute();
          created.push(compaction);
          results.push({
            id,
            from: r.request.from,
            to: r.request.to,
            fromSeq: r.fromSeq,
            toSeq: r.toSeq,
            nMessagesReplaced: compaction.nMessagesReplaced,
            supersedes: r.supersedes.map((c) => c.id),
            ...(r.warning ? { warning: r.warning } : {}),
          });
        }
        await trx.updateTable('sessions').set({ last_compaction_seq: next }).where('id', '=', sessionId).execute();
        await touch(trx, sessionId, now);
        const active = [...state.compactions.filter((c) => !superseded.has(c.id)), ...created].sort((a, b) => a.fromSeq - b.fromSeq);
        // A dry run's render is read inside this transaction, which sees the new rows; then it rolls back.
        const render = dryRun ? await this.#renderText(trx, sessionId) : undefined;
        const result: LedgerCompactResult = {
          sessionId,
          stored: !dryRun,
          ranges: results,
          nMessagesReplaced: results.reduce((n, r) => n + r.nMessagesReplaced, 0),
          visibleIds: visibleIdsFromSeqs(state.maxSeq, active),
          activeCompactions: active.length,
          totalKnownMessagesReplaced: active.reduce((n, c) => n + c.nMessagesReplaced, 0),
          ...(render !== undefined ? { render } : {}),
        };
        if (dryRun) throw new Rollback(result);
        return result;
      };
      return writeTransaction(this.#db, run);
    });
  }

  /**
   * Undoes one active compaction: its row is removed (its id is never handed out again), the
   * compactions it had covered become active again, and the rest of its range is visible.
   * Refuses an unknown session or compaction, and one that is itself covered by a later one.
   */
  async uncompact(sessionId: string, id: string): Promise<LedgerUncompactResult> {
    return this.#guard(async () =>
      writeTransaction(this.#db, async (trx) => {
        const session = await requireSession(trx, sessionId);
        const row = await trx.selectFrom('compactions').selectAll().where('session_id', '=', sessionId).where('id', '=', id).executeTakeFirst();
        if (!row) throw missingCompaction(sessionId, id, Number(session.last_compaction_seq));
        if (row.superseded_by !== null) throw refused(`compaction \`${id}\` is inside \`${row.superseded_by}\`; uncompact ${row.superseded_by} first`, { sessionId, compaction: id, coveredBy: row.superseded_by });
        const reinstated = await trx.selectFrom('compactions').select('id').where('session_id', '=', sessionId).where('superseded_by', '=', id).orderBy('seq').execute();
        await trx.updateTable('compactions').set({ superseded_by: null }).where('session_id', '=', sessionId).where('superseded_by', '=', id).execute();
        await trx.deleteFrom('compactions').where('session_id', '=', sessionId).where('id', '=', id).execute();
        await touch(trx, sessionId, Date.now());
        const active = await activeCompactions(trx, sessionId);
        // Restored: messages of the range that no reinstated compaction covers again.
        const stillCovered = active.filter((c) => c.fromSeq >= Number(row.from_seq) && c.toSeq <= Number(row.to_seq)).reduce((n, c) => n + c.nMessagesReplaced, 0);
        const restored = Number(row.n_messages_replaced) - stillCovered;
        return { sessionId, compactionId: id, nMessagesRestored: restored, reinstated: reinstated.map((r) => r.id), visibleIds: visibleIdsFromSeqs(await maxSeq(trx, sessionId), active) };
      }),
    );
  }

  /**
   * The text render of a session inside the caller's transaction: the layout of its active
   * compactions, each run of visible messages read as strings of whole blocks, as many as
   * {@link nextPieceMessages} says from the piece before (the first
   * {@link RENDER_FIRST_PIECE_MESSAGES}), handed to `write` in order with the blank lines between
   * blocks (the separator travels at the start of every piece but the first). With `roles`, each
   * block under its role line (`renderWithRoles`). A `write` that returns a promise is awaited
   * before the next piece is read (the read transaction stays open meanwhile); one that returns
   * `false` (its reader has gone) ends the render: nothing more is read.
   */
  async #renderPieces(trx: Db, sessionId: string, write: LedgerPieceWriter<string>, roles = false): Promise<void> {
    let first = true;
    // A writer that returns a promise (a full pipe) is waited for before the next piece is read;
    // false: no one reads on (`pcodx show | head`), so the rest is not read at all.
    const put = async (piece: string): Promise<boolean> => {
      const text = first ? piece : BLOCK_SEPARATOR + piece;
      first = false;
      return (await write(text)) !== false;
    };
    let roleCodes: string | undefined;
    // Messages in the next piece, sized from the piece before (across compactions too).
    let span = RENDER_FIRST_PIECE_MESSAGES;
    for (const s of renderLayout(await maxSeq(trx, sessionId), await activeCompactions(trx, sessionId))) {
      if (s.kind === 'compaction') {
        const c = s.compaction;
        // A compaction shows as the strongest role it covers (read once, only when one is shown with roles).
        const header = roles ? compactionRoleLine(c, strongestRole((roleCodes ??= this.#reads.roleCodes(sessionId)), c.fromSeq, c.toSeq)) : '';
        if (!(await put(header + renderBlock(c.summary, c.id)))) return;
        continue;
      }
      for (let from = s.from; from <= s.to; ) {
        const to = Math.min(s.to, from + span - 1);
        const piece = roles ? this.#reads.roleRenderRun(sessionId, from, to) : this.#reads.renderRun(sessionId, from, to);
        if (!(await put(piece))) return;
        span = nextPieceMessages(to - from + 1, piece.length);
        from = to + 1;
      }
    }
  }

  /** {@link #renderPieces} joined: the whole render as one string (dry runs of `compact`). */
  async #renderText(trx: Db, sessionId: string): Promise<string> {
    const pieces: string[] = [];
    await this.#renderPieces(trx, sessionId, (piece) => void pieces.push(piece));
    return pieces.join('');
  }

  /**
   * A session's outline (roles from the role index, active compactions) inside the caller's
   * transaction. With `known`, an outline of the same session read earlier, only the roles of
   * messages recorded after it are read: stored messages never change.
   */
  async #outline(trx: Db, sessionId: string, known?: LedgerOutline): Promise<LedgerOutline> {
    const roleCodes = known ? known.roleCodes + this.#reads.roleCodes(sessionId, known.maxSeq) : this.#reads.roleCodes(sessionId);
    return { maxSeq: roleCodes.length, roleCodes, compactions: await activeCompactions(trx, sessionId) };
  }

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw asLedgerError(this.path, error);
    }
  }
}

/**
 * Keeps a late tool result with its call: when the first messages just stored (`stored`, right
 * after message `lastSeq`) are tool results and compactions end at `lastSeq` (the call, or an
 * earlier result of the same call, is hidden), every such compaction, active or superseded,
 * grows to take in those leading results; its summary is unchanged. Superseded ones grow too, so
 * an `uncompact` of the outer one never brings back a split group. Returns the active compaction
 * the results joined and how many joined, or undefined when nothing was hidden.
 */
async function attachLateResults(trx: Db, sessionId: string, lastSeq: number, stored: readonly LedgerMessage[]): Promise<{ id: string; count: number } | undefined> {
  let count = 0;
  while (count < stored.length && stored[count]!.role === 'tool') count++;
  if (count === 0 || lastSeq === 0) return undefined;
  const ending = await trx.selectFrom('compactions').select(['id', 'superseded_by']).where('session_id', '=', sessionId).where('to_seq', '=', lastSeq).execute();
  if (ending.length === 0) return undefined;
  const toSeq = lastSeq + count;
  await trx
    .updateTable('compactions')
    .set((eb) => ({ to_seq: toSeq, to_msg_id: messageId(toSeq), n_messages_replaced: eb('n_messages_replaced', '+', count) }))
    .where('session_id', '=', sessionId)
    .where('to_seq', '=', lastSeq)
    .execute();
  const active = ending.find((c) => c.superseded_by === null);
  return { id: (active ?? ending[0]!).id, count };
}

/** The next ledger-wide write order, evaluated inside the write transaction (portable SQL). */
function nextWriteOrder() {
  return sql<number>`(select coalesce(max(updated_order), 0) + 1 from sessions)`;
}

/** Records a write to the session: `updated_at_ms` and the ledger-wide write order (the Rust pcodx, SichangHe/partial_compact_codex). */
async function touch(trx: Db, sessionId: string, now: number): Promise<void> {
  await trx.updateTable('sessions').set({ updated_at_ms: now, updated_order: nextWriteOrder() }).where('id', '=', sessionId).execute();
}

async function findSession(trx: Db, sessionId: string) {
  return trx.selectFrom('sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
}

/**
 * Why `uncompact <id>` found no compaction row: `msgN` is a message id; `cmpN` at or below the
 * session's last handed-out compaction seq was undone already (ids are never reused); else unknown.
 */
function missingCompaction(sessionId: string, id: string, lastCompactionSeq: number): ReturnType<typeof refused> {
  if (/^msg\d+$/.test(id)) return refused(`\`${id}\` is a message id, not a compaction id; uncompact takes a cmp id`, { sessionId, compaction: id });
  const m = /^cmp([1-9]\d*)$/.exec(id);
  if (m && Number(m[1]) <= lastCompactionSeq) return refused(`compaction \`${id}\` was already undone (uncompacted) in session \`${sessionId}\``, { sessionId, compaction: id });
  return refused(`unknown compaction \`${id}\` in session \`${sessionId}\``, { sessionId, compaction: id });
}

async function requireSession(trx: Db, sessionId: string) {
  const row = await findSession(trx, sessionId);
  if (!row) throw refused(unknownSession(sessionId), { sessionId });
  return row;
}

/** The highest message seq of a session (0 when it has none). */
async function maxSeq(trx: Db, sessionId: string): Promise<number> {
  const top = await trx.selectFrom('messages').select((eb) => eb.fn.max('seq').as('seq')).where('session_id', '=', sessionId).executeTakeFirst();
  return Number(top?.seq ?? 0);
}

/** Active compactions of a session, sorted by their first message. */
async function activeCompactions(trx: Db, sessionId: string): Promise<LedgerCompaction[]> {
  return (await trx.selectFrom('compactions').selectAll().where('session_id', '=', sessionId).where('superseded_by', 'is', null).orderBy('from_seq').execute()).map(toCompaction);
}

function toSession(row: LedgerSchema['sessions']): LedgerSession {
  return {
    id: row.id,
    cwd: row.cwd,
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    updatedOrder: Number(row.updated_order),
    usageCorrelationId: row.usage_correlation_id,
  };
}

function toCompaction(row: LedgerSchema['compactions']): LedgerCompaction {
  return {
    id: row.id,
    seq: Number(row.seq),
    fromMessageId: row.from_msg_id,
    toMessageId: row.to_msg_id,
    fromSeq: Number(row.from_seq),
    toSeq: Number(row.to_seq),
    summary: row.summary,
    nMessagesReplaced: Number(row.n_messages_replaced),
    createdAtMs: Number(row.created_at_ms),
  };
}

/** A plan coming back from the `compact` hook must still be a plan for the same session. */
function checkAmendedPlan(plan: unknown, sessionId: string): CompactionPlan {
  const p = plan as Partial<CompactionPlan> | null | undefined;
  const ok =
    p !== null &&
    typeof p === 'object' &&
    p.sessionId === sessionId &&
    Array.isArray(p.ranges) &&
    p.ranges.every((r) => r !== null && typeof r === 'object' && typeof r.from === 'string' && typeof r.to === 'string' && typeof r.summary === 'string');
  if (!ok) throw refused(`a compact hook tap returned something other than a compaction plan for session \`${sessionId}\`; nothing was stored`, { sessionId });
  return p as CompactionPlan;
}
