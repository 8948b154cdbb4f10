import type { LedgerCompaction, LedgerMessage, LedgerRole, VisibleEntry } from '@cordon/plugin-api';

/** The roles a message may have, in the order the schema's CHECK lists them. */
export const ROLES: readonly LedgerRole[] = ['system', 'developer', 'user', 'assistant', 'tool'];

/** Roles whose messages a summary must take care to preserve (research §1.5 step 8). */
export const PRESERVE_ROLES: ReadonlySet<LedgerRole> = new Set(['system', 'developer', 'user']);

/** Rank used to pick a compaction's role: the strongest role it covers (research §1.3). */
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
 * The model-visible view (research §1.3): walk messages in seq order; where an active compaction
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

/** Ids of {@link visibleEntries}, a mix of `msgN` and `cmpN`. */
export function visibleIds(state: LedgerState): string[] {
  return visibleEntries(state).map((e) => e.id);
}

/**
 * The visible ids without loading messages: sequence numbers are gap-free (`1..maxSeq`, never
 * deleted, assigned under the write lock), so walking them with the active compactions gives the
 * same ids as {@link visibleEntries}. O(maxSeq) integer steps, no database rows.
 */
export function visibleIdsFromSeqs(maxSeq: number, compactions: readonly LedgerCompaction[]): string[] {
  const startsAt = new Map<number, LedgerCompaction>();
  for (const c of compactions) startsAt.set(c.fromSeq, c);
  const ids: string[] = [];
  for (let seq = 1; seq <= maxSeq; seq++) {
    const c = startsAt.get(seq);
    if (c) {
      ids.push(c.id);
      seq = Math.max(seq, c.toSeq);
    } else {
      ids.push(`msg${seq}`);
    }
  }
  return ids;
}
