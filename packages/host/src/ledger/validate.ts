import type { LedgerCompaction, LedgerRangeRequest } from '@cordon/plugin-api';
import { UNSHOWN_SOURCE } from '@cordon/plugin-api';
import { refused, unknownSession } from './errors.js';
import { messageId } from './ids.js';
import { outlineOf, PRESERVE_ROLES, renderLayout, ROLE_CODE, type LedgerOutline, type LedgerState } from './state.js';

/** One validated range, resolved to message sequence numbers. */
export interface ResolvedRange {
  /** Position in the request (results follow request order). */
  readonly index: number;
  readonly request: LedgerRangeRequest;
  readonly fromSeq: number;
  readonly toSeq: number;
  /** Active compactions lying wholly inside the range; the new compaction covers them (nesting). */
  readonly supersedes: readonly LedgerCompaction[];
  /** The Rust pcodx's rule (SichangHe/partial_compact_codex), when the range holds system, developer or user messages. */
  readonly warning?: string;
}

/** The seq a message id names (`msgN`, N ≥ 1 without leading zeros), else undefined. */
function seqOfMessageId(id: string): number | undefined {
  const m = /^msg([1-9]\d*)$/.exec(id);
  return m ? Number(m[1]) : undefined;
}

/** The active compaction hiding message id `id` (`msgN` with N inside its range), if any. */
function coveringCompaction(state: LedgerOutline, id: string): LedgerCompaction | undefined {
  const seq = seqOfMessageId(id);
  if (seq === undefined || seq > state.maxSeq) return undefined;
  return state.compactions.find((c) => c.fromSeq <= seq && seq <= c.toSeq);
}

/**
 * The seq bounds of each visible id, without listing the visible messages: a `cmpN` is looked up
 * among the compactions the render shows, a `msgN` is visible when it lies in one of the render's
 * message runs (binary search). Same answers as a map over every visible entry.
 */
function visibleBounds(state: LedgerOutline): (id: string) => { from: number; to: number } | undefined {
  const layout = renderLayout(state.maxSeq, state.compactions);
  const shown = new Map<string, LedgerCompaction>();
  const runs: Array<{ from: number; to: number }> = [];
  for (const s of layout) {
    if (s.kind === 'compaction') shown.set(s.compaction.id, s.compaction);
    else runs.push(s);
  }
  return (id) => {
    const c = shown.get(id);
    if (c) return { from: c.fromSeq, to: c.toSeq };
    const seq = seqOfMessageId(id);
    if (seq === undefined) return undefined;
    let lo = 0;
    let hi = runs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const run = runs[mid]!;
      if (seq < run.from) hi = mid - 1;
      else if (seq > run.to) lo = mid + 1;
      else return { from: seq, to: seq };
    }
    return undefined;
  };
}

/**
 * Checks a compaction request against one session's state, in the order of
 * the Rust pcodx, SichangHe/partial_compact_codex (the first failing rule is reported; `CORDON_LEDGER_REFUSED`):
 *
 * 1. at least one range; 2. the session exists; 3. per range in request order: a non-blank
 * summary, both endpoints among the current visible ids (`msg` or `cmp`; a `cmp` start resolves
 * to its first message, a `cmp` end to its last), from not after to; 4. ranges sorted by start;
 * 5. no range splits a tool group (an assistant row and the tool rows right after it);
 * 6. requested ranges do not overlap; 7. no range partly overlaps an active compaction (wholly
 * covered ones are superseded: nesting). 8. A range holding system, developer or user messages
 * gets a warning, not an error.
 *
 * Returns the ranges in request order. Pure: reads only `session`, which is a loaded state or
 * its outline (the ledger passes the outline: roles and compactions only, no message rows).
 * O(messages) on typed arrays plus O(ranges × compactions).
 */
export function validateCompaction(sessionId: string, sessionExists: boolean, session: LedgerState | LedgerOutline, requests: readonly LedgerRangeRequest[]): ResolvedRange[] {
  if (requests.length === 0) throw refused('provide at least one compaction range');
  if (!sessionExists) throw refused(unknownSession(sessionId), { sessionId });
  const state = 'messages' in session ? outlineOf(session) : session;
  const bounds = visibleBounds(state);

  // Step 3: each range on its own, in request order.
  const resolved = requests.map((request, index) => {
    const label = `${request.from}..${request.to}`;
    if (typeof request.summary !== 'string' || request.summary.trim() === '') throw refused(`summary must be non-empty (range ${label})`, { range: label });
    // A summary of zero-width characters alone renders as nothing, and hides the range it replaces.
    if (!showsText(request.summary)) throw refused(`summary must hold text that shows, not only invisible characters such as U+200B (range ${label})`, { range: label });
    const from = bounds(request.from);
    const to = bounds(request.to);
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
function visibleIdAt(state: LedgerOutline, seq: number): string {
  return state.compactions.find((c) => c.fromSeq <= seq && seq <= c.toSeq)?.id ?? messageId(seq);
}

/** Tool groups: for each seq inside one, the group's assistant seq (`start`) and last tool seq (`end`). */
function toolGroups(state: LedgerOutline): { at(seq: number): { start: number; end: number } | undefined } {
  const codes = state.roleCodes;
  const n = codes.length;
  const assistant = ROLE_CODE.assistant.charCodeAt(0);
  const tool = ROLE_CODE.tool.charCodeAt(0);
  const startOf = new Int32Array(n + 2);
  const endOf = new Int32Array(n + 2);
  // Index i holds message seq i + 1.
  for (let i = 0; i < n; i++) {
    if (codes.charCodeAt(i) !== assistant || codes.charCodeAt(i + 1) !== tool) continue;
    let j = i + 1;
    while (codes.charCodeAt(j + 1) === tool) j++;
    for (let k = i; k <= j; k++) {
      startOf[k + 1] = i + 1;
      endOf[k + 1] = j + 1;
    }
    i = j;
  }
  return { at: (seq) => (seq >= 0 && seq < startOf.length && startOf[seq] ? { start: startOf[seq]!, end: endOf[seq]! } : undefined) };
}

/** `prefix[s]` = number of messages with seq ≤ s whose role asks for preservation. */
function preservePrefix(state: LedgerOutline): Int32Array {
  const codes = state.roleCodes;
  const prefix = new Int32Array(codes.length + 1);
  const preserved = new Uint8Array(128);
  for (const role of PRESERVE_ROLES) preserved[ROLE_CODE[role].charCodeAt(0)] = 1;
  for (let i = 0; i < codes.length; i++) prefix[i + 1] = prefix[i]! + preserved[codes.charCodeAt(i)]!;
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

let unshown: RegExp | undefined;

/**
 * Characters that show as nothing on their own, beyond `UNSHOWN_SOURCE` (which keeps them, since
 * on a terminal they choose how the character before them looks): the variation selectors
 * (U+FE0F, U+E0100, the Mongolian ones) and U+2800, the blank braille pattern.
 */
const BLANK_ALONE = String.raw`[\p{Variation_Selector}⠀]`;

/**
 * Whether `text` holds a character that a reader sees: not only blanks, controls and format
 * characters (U+200B and the other zero-width and bidi characters, the plugin API's
 * `UNSHOWN_SOURCE`), variation selectors and the blank braille pattern ({@link BLANK_ALONE}).
 */
function showsText(text: string): boolean {
  return text.replace((unshown ??= new RegExp(`${UNSHOWN_SOURCE}|${BLANK_ALONE}`, 'gu')), '').trim() !== '';
}
