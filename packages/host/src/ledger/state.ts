import type { LedgerCompaction, LedgerMessage, LedgerRole, VisibleEntry } from '@cordon/plugin-api';

/** The roles a message may have, in the order the schema's CHECK lists them. */
export const ROLES: readonly LedgerRole[] = ['system', 'developer', 'user', 'assistant', 'tool'];

/** Roles whose messages a summary must take care to preserve (the Rust pcodx, SichangHe/partial_compact_codex step 8). */
export const PRESERVE_ROLES: ReadonlySet<LedgerRole> = new Set(['system', 'developer', 'user']);

/** Rank used to pick a compaction's role: the strongest role it covers (the Rust pcodx, SichangHe/partial_compact_codex). */
const STRENGTH: Record<LedgerRole, number> = { system: 3, developer: 2, user: 1, assistant: 0, tool: 0 };
const BY_STRENGTH = ['assistant', 'user', 'developer', 'system'] as const;

/**
 * One session's messages (all of them, in seq order, seq = index + 1) and its active compactions
 * (sorted by `fromSeq`). Message text may be empty when the state was loaded without text.
 */
export interface LedgerState {
  readonly messages: readonly LedgerMessage[];
  readonly compactions: readonly LedgerCompaction[];
}

/**
 * The model-visible view (the Rust pcodx, SichangHe/partial_compact_codex): walk messages in seq order; where an active compaction
 * starts, emit it and continue after its last message; otherwise emit the message. O(messages).
 */
export function visibleEntries(state: LedgerState): VisibleEntry[] {
  const startsAt = new Map<number, LedgerCompaction>();
  for (const c of state.compactions) startsAt.set(c.fromSeq, c);
  const entries: VisibleEntry[] = [];
  const { messages } = state;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const c = startsAt.get(m.seq);
    if (!c) {
      entries.push({ kind: 'message', id: m.id, role: m.role, text: m.text, message: m });
      continue;
    }
    let strongest = 0;
    let j = i;
    for (; j < messages.length && messages[j]!.seq <= c.toSeq; j++) strongest = Math.max(strongest, STRENGTH[messages[j]!.role]);
    entries.push({ kind: 'compaction', id: c.id, role: BY_STRENGTH[strongest]!, text: c.summary, compaction: c });
    i = j - 1;
  }
  return entries;
}

/**
 * A session without its text, enough to validate a compaction and lay out the render: sequence
 * numbers are gap-free (`1..maxSeq`, assigned under the write lock, never deleted), so one
 * character per message carries every role. Built from one covering-index read
 * (`SessionReads.roleCodes`), not from message rows.
 */
export interface LedgerOutline {
  /** Highest message seq (0 for an empty session); equals `roleCodes.length`. */
  readonly maxSeq: number;
  /** `roleCodes[seq - 1]` is {@link ROLE_CODE} of message `seq`'s role. */
  readonly roleCodes: string;
  /** Active compactions, sorted by `fromSeq`. */
  readonly compactions: readonly LedgerCompaction[];
}

/** One character per role: the first letter, which the five roles do not share. */
export const ROLE_CODE: Readonly<Record<LedgerRole, string>> = { system: 's', developer: 'd', user: 'u', assistant: 'a', tool: 't' };

/** The role a {@link ROLE_CODE} character stands for. */
export const ROLE_OF_CODE: Readonly<Record<string, LedgerRole>> = { s: 'system', d: 'developer', u: 'user', a: 'assistant', t: 'tool' };

/** The outline of a loaded state (messages in seq order, seq = index + 1). */
export function outlineOf(state: LedgerState): LedgerOutline {
  return { maxSeq: state.messages.length, roleCodes: state.messages.map((m) => ROLE_CODE[m.role]).join(''), compactions: state.compactions };
}

/** A stretch of the render: visible messages `from..to`, or one compaction standing for its range. */
export type LayoutSegment = { readonly kind: 'messages'; readonly from: number; readonly to: number } | { readonly kind: 'compaction'; readonly compaction: LedgerCompaction };

/**
 * The render's shape from sequence numbers alone, the same walk as {@link visibleEntries}: where
 * an active compaction starts, it stands for its messages and the walk continues after its last
 * one; the runs between are visible messages. A compaction that starts inside an earlier one (only
 * in a database written elsewhere) is not shown, as in the walk. O(compactions log compactions).
 */
export function renderLayout(maxSeq: number, compactions: readonly LedgerCompaction[]): LayoutSegment[] {
  const startsAt = new Map<number, LedgerCompaction>();
  for (const c of compactions) startsAt.set(c.fromSeq, c);
  const starts = [...startsAt.keys()].filter((s) => s >= 1 && s <= maxSeq).sort((a, b) => a - b);
  const segments: LayoutSegment[] = [];
  let next = 1;
  for (const start of starts) {
    if (start < next) continue;
    if (start > next) segments.push({ kind: 'messages', from: next, to: start - 1 });
    const c = startsAt.get(start)!;
    segments.push({ kind: 'compaction', compaction: c });
    next = Math.min(Math.max(start, c.toSeq), maxSeq) + 1;
  }
  if (next <= maxSeq) segments.push({ kind: 'messages', from: next, to: maxSeq });
  return segments;
}

/** The strongest role among messages `from..to` of an outline's role codes (what a compaction shows as). */
export function strongestRole(roleCodes: string, from: number, to: number): Exclude<LedgerRole, 'tool'> {
  let strongest = 0;
  const last = Math.min(to, roleCodes.length);
  for (let seq = Math.max(from, 1); seq <= last && strongest < 3; seq++) strongest = Math.max(strongest, STRENGTH[ROLE_OF_CODE[roleCodes[seq - 1]!]!]);
  return BY_STRENGTH[strongest]!;
}

/** Ids of {@link visibleEntries}, a mix of `msgN` and `cmpN`. */
export function visibleIds(state: LedgerState): string[] {
  return visibleEntries(state).map((e) => e.id);
}

/**
 * The visible ids without loading messages: sequence numbers are gap-free (`1..maxSeq`, never
 * deleted, assigned under the write lock), so walking them with the active compactions gives the
 * same ids as {@link visibleEntries}. O(maxSeq) integer steps, no database rows. The pieces of
 * {@link visibleIdPieces}, joined.
 */
export function visibleIdsFromSeqs(maxSeq: number, compactions: readonly LedgerCompaction[]): string[] {
  // One piece of unbounded size: the array itself, no copy.
  for (const ids of visibleIdPieces(maxSeq, compactions, Infinity)) return ids;
  return [];
}

/** How many ids {@link visibleIdPieces} hands over at a time by default (about 80 KiB of printed lines). */
export const VISIBLE_IDS_PIECE = 8192;

/**
 * {@link visibleIdsFromSeqs} in order, as arrays of at most `pieceSize` ids (the last may be
 * shorter; none is empty), so a caller that prints them (`pcodx ids`) never holds them all.
 */
export function* visibleIdPieces(maxSeq: number, compactions: readonly LedgerCompaction[], pieceSize = VISIBLE_IDS_PIECE): Generator<string[]> {
  const startsAt = new Map<number, LedgerCompaction>();
  for (const c of compactions) startsAt.set(c.fromSeq, c);
  let ids: string[] = [];
  for (let seq = 1; seq <= maxSeq; seq++) {
    const c = startsAt.get(seq);
    if (c) {
      ids.push(c.id);
      seq = Math.max(seq, c.toSeq);
    } else {
      ids.push(`msg${seq}`);
    }
    if (ids.length >= pieceSize) {
      yield ids;
      ids = [];
    }
  }
  if (ids.length) yield ids;
}
