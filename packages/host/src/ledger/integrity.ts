import type BetterSqlite3 from 'better-sqlite3';
import { displayPath } from '../envelope/path-text.js';
import { dbError } from './errors.js';
import type { CompactionsTable } from './schema.js';
import { isValidSessionName } from './ids.js';
import { PRESERVE_ROLES, ROLES } from './state.js';

/**
 * The usage correlation id cordon gives each session: `pcses-` and 32 lowercase hex digits
 * (128 random bits). Only ids of this form are ever copied into the usage log.
 */
export const CORRELATION_ID_PATTERN = /^pcses-[0-9a-f]{32}$/;

/** True when `id` has the form of a correlation id cordon made ({@link CORRELATION_ID_PATTERN}). */
export function isCorrelationId(id: unknown): id is string {
  return typeof id === 'string' && CORRELATION_ID_PATTERN.test(id);
}

/** One compaction row as the check reads it: every column but the creation time. */
type CompactionRow = Omit<CompactionsTable, 'created_at_ms'>;

/**
 * Where {@link checkLedgerRows} reads sessions and compactions. A file the reference pcodx wrote
 * (its schema version 1) has no `last_compaction_seq` (its next compaction id is above the
 * highest in use) and no `superseded_by` (it deletes the compactions a new one covers).
 */
const LAYOUT_SOURCES = {
  cordon: { sessions: 'sessions', compactions: 'compactions' },
  reference: {
    sessions: `(select id, usage_correlation_id, coalesce((select max(seq) from compactions c where c.session_id = s.id), 0) as last_compaction_seq from sessions s)`,
    compactions: `(select session_id, id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, n_messages_replaced, null as superseded_by from compactions)`,
  },
} as const;

/**
 * A value from the file as a message shows it: always quoted, every character a terminal would
 * not show as itself escaped (controls, bidirectional overrides, odd spaces; `displayPath`).
 */
const q = (value: unknown): string => {
  const text = String(value);
  const shown = displayPath(text);
  return shown.startsWith('"') && shown !== text ? shown : JSON.stringify(text);
};

/**
 * Checks every row of a ledger against the invariants its writer guarantees, reading only, and
 * throws `CORDON_DB_ERROR` naming the file and the first bad row when one does not hold. A row
 * that breaks one of these would make the ledger answer wrongly without an error (a compaction
 * ending at a message that does not exist hides every later message; a gap in the sequence
 * numbers shifts every visible id), so such a file is reported as damaged instead of used:
 *
 * - sessions: a valid name (1-200 characters, no control characters); a usage correlation id
 *   cordon made ({@link CORRELATION_ID_PATTERN}); `last_compaction_seq` not below any of its
 *   compaction seqs;
 * - messages: belong to a known session; seqs `1..n` without gaps; id `msg<seq>`; a known role;
 *   non-empty text; `is_human_prompt` and `preserve_warning` as the role implies;
 * - compactions: belong to a known session; id `cmp<seq>`; endpoints `msg<from_seq>` and
 *   `msg<to_seq>` with `1 <= from_seq <= to_seq <= ` the session's last message;
 *   `n_messages_replaced = to_seq - from_seq + 1`; a non-blank summary; `superseded_by` empty
 *   or naming a later compaction of the same session whose range holds this one; active
 *   compactions never overlap.
 *
 * Not checked, on purpose: rules that only guard new writes and that ledgers written by the
 * reference pcodx or by earlier cordon versions can break without any read going wrong: a tool
 * message right after a non-assistant message, and a compaction that ends between an assistant
 * call and its results (the render shows such a result after the compaction).
 *
 * `layout` `reference` reads a file in the reference pcodx's schema version 1 (before migrating it).
 *
 * Cost: one pass over the messages table (per-row checks) and aggregates over the
 * `(session_id, seq)` index; compactions and sessions are read whole (they are few).
 */
export function checkLedgerRows(raw: BetterSqlite3.Database, path: string, layout: 'cordon' | 'reference' = 'cordon'): void {
  // One snapshot for every query, so rows another process commits meanwhile cannot look damaged.
  if (raw.inTransaction) return checkRows(raw, path, layout);
  raw.exec('begin');
  try {
    checkRows(raw, path, layout);
  } finally {
    raw.exec('rollback');
  }
}

function checkRows(raw: BetterSqlite3.Database, path: string, layout: 'cordon' | 'reference'): void {
  const source = LAYOUT_SOURCES[layout];
  const damaged = (what: string) =>
    dbError(path, `ledger database ${path} is damaged: ${what}; it was left unchanged: move it away (or restore a backup), or point --db / PCODX_DB at another file`);

  const sessions = new Map<string, { last: number }>();
  const sessionRows = raw.prepare(`select id, usage_correlation_id, last_compaction_seq from ${source.sessions}`).all() as Array<{ id: unknown; usage_correlation_id: unknown; last_compaction_seq: unknown }>;
  for (const s of sessionRows) {
    if (typeof s.id !== 'string' || !isValidSessionName(s.id)) throw damaged(`sessions row ${q(s.id)} has a name that is not a valid session name`);
    if (!isCorrelationId(s.usage_correlation_id)) throw damaged(`sessions row ${q(s.id)} has a usage correlation id that cordon did not make (expected pcses- and 32 lowercase hex digits)`);
    const last = Number(s.last_compaction_seq);
    if (!Number.isSafeInteger(last) || last < 0) throw damaged(`sessions row ${q(s.id)} has last_compaction_seq ${q(s.last_compaction_seq)}`);
    sessions.set(s.id, { last });
  }

  // Sequence numbers per session, from the (session_id, seq) index.
  const counts = new Map<string, number>();
  const spans = raw.prepare(`select session_id, count(*) as n, min(seq) as lo, max(seq) as hi from messages group by session_id`).all() as Array<{ session_id: string; n: number; lo: unknown; hi: unknown }>;
  for (const s of spans) {
    if (!sessions.has(s.session_id)) throw damaged(`messages rows name session ${q(s.session_id)}, which has no sessions row`);
    if (s.lo !== 1 || s.hi !== s.n) {
      throw damaged(`the messages of session ${q(s.session_id)} do not run msg1..msg${s.n} without gaps (${s.n} rows, seq ${String(s.lo)} to ${String(s.hi)})`);
    }
    counts.set(s.session_id, s.n);
  }

  // Per-row rules of the messages table, in one pass; the first offending row is named.
  const roles = ROLES.map((r) => `'${r}'`).join(', ');
  const preserve = [...PRESERVE_ROLES].map((r) => `'${r}'`).join(', ');
  // The filter is the `problem` cases in a form SQLite evaluates faster per row (36 -> 21 ms of
  // CPU at 100,000 messages, most of what a cold `pcodx show` spends checking): one CASE on the
  // role gives both flags the role implies (a role that is no text, or not one of ROLES, takes
  // no branch: refused), instead of two IN lists and a role comparison per row.
  const flagsByRole = ROLES.map((r) => `when '${r}' then is_human_prompt is ${r === 'user' ? 1 : 0} and preserve_warning is ${PRESERVE_ROLES.has(r) ? 1 : 0}`).join(' ');
  const bad = raw
    .prepare(
      `select session_id, id, seq, role,
         case
           when id is not 'msg' || seq then 'its id is not msg<seq>'
           when role not in (${roles}) or typeof(role) != 'text' then 'its role is not one of ${ROLES.join(', ')}'
           when typeof(text) != 'text' or text = '' then 'its text is empty or not text'
           when is_human_prompt is not (role = 'user') then 'is_human_prompt does not match its role'
           when preserve_warning is not (role in (${preserve})) then 'preserve_warning does not match its role'
         end as problem
       from messages
       where id is not 'msg' || seq or typeof(text) != 'text' or text = '' or not case role ${flagsByRole} else 0 end
       limit 1`,
    )
    .get() as { session_id: string; id: unknown; seq: unknown; role: unknown; problem: string } | undefined;
  if (bad) throw damaged(`messages row ${q(bad.id)} (seq ${String(bad.seq)}, role ${q(bad.role)}) of session ${q(bad.session_id)}: ${bad.problem}`);

  const rows = raw.prepare(`select session_id, id, seq, from_msg_id, to_msg_id, from_seq, to_seq, summary, n_messages_replaced, superseded_by from ${source.compactions} order by session_id, from_seq, seq`).all() as CompactionRow[];
  const byKey = new Map<string, CompactionRow>();
  for (const c of rows) byKey.set(`${c.session_id}\u0000${c.id}`, c);
  const lastActive = new Map<string, CompactionRow>();
  for (const c of rows) {
    const name = `compactions row ${q(c.id)} of session ${q(c.session_id)}`;
    const session = sessions.get(c.session_id);
    if (!session) throw damaged(`${name} names a session that has no sessions row`);
    const ints = [c.seq, c.from_seq, c.to_seq, c.n_messages_replaced];
    if (!ints.every((v) => Number.isSafeInteger(v))) throw damaged(`${name} has a seq, from_seq, to_seq or n_messages_replaced that is not an integer`);
    if (c.seq < 1 || c.id !== `cmp${c.seq}`) throw damaged(`${name}: its id is not cmp<seq> (seq ${c.seq})`);
    if (c.seq > session.last) throw damaged(`${name}: its seq ${c.seq} is above the session's last_compaction_seq ${session.last}`);
    const n = counts.get(c.session_id) ?? 0;
    if (c.from_msg_id !== `msg${c.from_seq}` || c.to_msg_id !== `msg${c.to_seq}`) {
      throw damaged(`${name}: its range ${q(c.from_msg_id)}..${q(c.to_msg_id)} does not match its seqs ${c.from_seq}..${c.to_seq}`);
    }
    if (c.from_seq < 1 || c.to_seq > n) throw damaged(`${name}: its range ${c.from_msg_id}..${c.to_msg_id} names a message that does not exist (the session has ${n === 0 ? 'no messages' : `msg1..msg${n}`})`);
    if (c.from_seq > c.to_seq) throw damaged(`${name}: its range ${c.from_msg_id}..${c.to_msg_id} ends before it starts`);
    if (c.n_messages_replaced !== c.to_seq - c.from_seq + 1) throw damaged(`${name}: n_messages_replaced is ${c.n_messages_replaced}, but its range holds ${c.to_seq - c.from_seq + 1} messages`);
    if (typeof c.summary !== 'string' || c.summary.trim() === '') throw damaged(`${name}: its summary is blank`);
    if (c.superseded_by !== null) {
      const outer = byKey.get(`${c.session_id}\u0000${c.superseded_by}`);
      if (!outer || outer.seq <= c.seq || outer.from_seq > c.from_seq || outer.to_seq < c.to_seq) {
        throw damaged(`${name}: superseded_by ${q(c.superseded_by)} does not name a later compaction of the session that covers it`);
      }
      continue;
    }
    const previous = lastActive.get(c.session_id);
    if (previous && c.from_seq <= previous.to_seq) {
      throw damaged(`${name}: its range ${c.from_msg_id}..${c.to_msg_id} overlaps the active compaction ${q(previous.id)} (${previous.from_msg_id}..${previous.to_msg_id})`);
    }
    lastActive.set(c.session_id, c);
  }
}
