import type { LedgerCompaction, LedgerRangeRequest } from '@cordon/plugin-api';
import { refused } from './errors.js';
import { messageId } from './ids.js';
import { PRESERVE_ROLES, visibleEntries, type LedgerState } from './state.js';

/** One validated range, resolved to message sequence numbers. */
export interface ResolvedRange {
  /** Position in the request (results follow request order). */
  readonly index: number;
  readonly request: LedgerRangeRequest;
  readonly fromSeq: number;
  readonly toSeq: number;
  /** Active compactions lying wholly inside the range; the new compaction covers them (nesting). */
  readonly supersedes: readonly LedgerCompaction[];
  /** Research §1.5 step 8, when the range holds system, developer or user messages. */
  readonly warning?: string;
}

/** The active compaction hiding message id `id` (`msgN` with N inside its range), if any. */
function coveringCompaction(state: LedgerState, id: string): LedgerCompaction | undefined {
  const m = /^msg([1-9]\d*)$/.exec(id);
  if (!m) return undefined;
  const seq = Number(m[1]);
  if (seq > state.messages.length) return undefined;
  return state.compactions.find((c) => c.fromSeq <= seq && seq <= c.toSeq);
}

/**
 * Checks a compaction request against one session's state, in the order of
 * research/pcodx-codex.md §1.5 (the first failing rule is reported; `CORDON_LEDGER_REFUSED`):
 *
 * 1. at least one range; 2. the session exists; 3. per range in request order: a non-blank
 * summary, both endpoints among the current visible ids (`msg` or `cmp`; a `cmp` start resolves
 * to its first message, a `cmp` end to its last), from not after to; 4. ranges sorted by start;
 * 5. no range splits a tool group (an assistant row and the tool rows right after it);
 * 6. requested ranges do not overlap; 7. no range partly overlaps an active compaction (wholly
 * covered ones are superseded: nesting). 8. A range holding system, developer or user messages
 * gets a warning, not an error.
 *
 * Returns the ranges in request order. Pure: reads only `state`.
 */
export function validateCompaction(sessionId: string, sessionExists: boolean, state: LedgerState, requests: readonly LedgerRangeRequest[]): ResolvedRange[] {
  if (requests.length === 0) throw refused('provide at least one compaction range');
  if (!sessionExists) throw refused(`unknown session \`${sessionId}\``, { sessionId });

  const entries = visibleEntries({ messages: state.messages, compactions: state.compactions });
  const bounds = new Map<string, { from: number; to: number }>();
  for (const e of entries) bounds.set(e.id, e.kind === 'message' ? { from: e.message.seq, to: e.message.seq } : { from: e.compaction.fromSeq, to: e.compaction.toSeq });

  // Step 3: each range on its own, in request order.
  const resolved = requests.map((request, index) => {
    const label = `${request.from}..${request.to}`;
    if (typeof request.summary !== 'string' || request.summary.trim() === '') throw refused(`summary must be non-empty (range ${label})`, { range: label });
    const from = bounds.get(request.from);
    const to = bounds.get(request.to);
    for (const [endpoint, found] of [[request.from, from], [request.to, to]] as const) {
      if (found) continue;
      const cover = coveringCompaction(state, endpoint);
      if (cover) throw refused(`endpoint \`${endpoint}\` is not visible in the current session; it is covered by ${cover.id}; use ${cover.id} as the endpoint`, { endpoint, coveredBy: cover.id });
      throw refused(`endpoint \`${endpoint}\` is not visible in the current session; use visible msg/cmp endpoints`, { endpoint });
    }
    if (from!.from > to!.to) throw refused(`\`${request.from}\` comes after \`${request.to}\``, { range: label });
    return { index, request, fromSeq: from!.from, toSeq: to!.to };
  });

  // Step 4.
  const sorted = [...resolved].sort((a, b) => a.fromSeq - b.fromSeq || a.index - b.index);

  // Step 5: tool groups, over every message (hidden ones too). Messages name only visible ids:
  // a group member hidden in a compaction (a ledger written before late results joined their
  // compaction) is named by that compaction.
  const groups = toolGroups(state);
  const shown = (seq: number) => visibleIdAt(state, seq);
  for (const r of sorted) {
    const label = `${r.request.from}..${r.request.to}`;
    const atStart = groups.at(r.fromSeq);
    if (atStart && r.fromSeq > atStart.start) {
      throw refused(
        `range ${label} splits a tool_use/tool_result group at ${shown(atStart.start + 1)}; extend the range start back to ${shown(atStart.start)} or start after ${shown(atStart.end)}`,
        { range: label, group: [shown(atStart.start), shown(atStart.end)] },
      );
    }
    const atEnd = groups.at(r.toSeq);
    if (atEnd && r.toSeq < atEnd.end) {
      throw refused(`range ${label} splits a tool_use/tool_result group at ${shown(atEnd.start)}; extend the range to ${shown(atEnd.end)}`, {
        range: label,
        group: [shown(atEnd.start), shown(atEnd.end)],
      });
    }
  }

  // Step 6.
  for (let i = 1; i < sorted.length; i++) {
    const later = sorted[i]!.request;
    if (sorted[i]!.fromSeq <= sorted[i - 1]!.toSeq) throw refused(`range starting at ${later.from} overlaps another requested range`, { range: `${later.from}..${later.to}` });
  }

  // Step 7, then step 8.
  const preserveBefore = preservePrefix(state);
  const byIndex: ResolvedRange[] = [];
  for (const r of sorted) {
    const label = `${r.request.from}..${r.request.to}`;
    const supersedes: LedgerCompaction[] = [];
    for (const c of overlapping(state.compactions, r.fromSeq, r.toSeq)) {
      if (r.fromSeq <= c.fromSeq && c.toSeq <= r.toSeq) {
        supersedes.push(c);
        continue;
      }
      throw refused(`range ${label} partially overlaps compaction ${c.id}; use visible cmp endpoints or choose a non-overlapping range`, { range: label, compaction: c.id });
    }
    const preserved = preserveBefore[r.toSeq]! - preserveBefore[r.fromSeq - 1]!;
    const warning = preserved > 0 ? `range ${label} holds system, developer or user messages; its summary must preserve active instructions and human intent` : undefined;
    byIndex[r.index] = { ...r, supersedes, ...(warning ? { warning } : {}) };
  }
  return byIndex;
}

/** The id under which message `seq` shows in the render: `msgN`, or the active compaction hiding it. */
function visibleIdAt(state: LedgerState, seq: number): string {
  return state.compactions.find((c) => c.fromSeq <= seq && seq <= c.toSeq)?.id ?? messageId(seq);
}

/** Tool groups: for each seq inside one, the group's assistant seq (`start`) and last tool seq (`end`). */
function toolGroups(state: LedgerState): { at(seq: number): { start: number; end: number } | undefined } {
  const { messages } = state;
  const startOf = new Int32Array(messages.length + 2);
  const endOf = new Int32Array(messages.length + 2);
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== 'assistant' || messages[i + 1]?.role !== 'tool') continue;
    let j = i + 1;
    while (messages[j + 1]?.role === 'tool') j++;
    const start = messages[i]!.seq;
    const end = messages[j]!.seq;
    for (let k = i; k <= j; k++) {
      startOf[messages[k]!.seq] = start;
      endOf[messages[k]!.seq] = end;
    }
    i = j;
  }
  return { at: (seq) => (seq >= 0 && seq < startOf.length && startOf[seq] ? { start: startOf[seq]!, end: endOf[seq]! } : undefined) };
}

/** `prefix[s]` = number of messages with seq ≤ s whose role asks for preservation. */
function preservePrefix(state: LedgerState): Int32Array {
  const prefix = new Int32Array(state.messages.length + 1);
  for (const m of state.messages) prefix[m.seq] = (prefix[m.seq - 1] ?? 0) + (PRESERVE_ROLES.has(m.role) ? 1 : 0);
  return prefix;
}

/**
 * Active compactions that share at least one message with `from..to`. A linear scan on purpose:
 * it stays right even for a database whose active compactions overlap (written elsewhere), which
 * is exactly the state step 7 guards against.
 */
function overlapping(compactions: readonly LedgerCompaction[], from: number, to: number): LedgerCompaction[] {
  return compactions.filter((c) => c.fromSeq <= to && c.toSeq >= from);
}
