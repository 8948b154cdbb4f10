import type { LedgerRecordInput } from '@cordon/plugin-api';
import { PCODX_TOOLS } from '../tools/definitions.js';

/** Longest native item kept in the transcript, in code points (whole command outputs would swamp the ledger). */
export const MAX_ITEM_CHARS = 4000;

/** Item types that are not tool transcript: the conversation itself and the model's private notes. */
const NOT_TRANSCRIPT = new Set(['userMessage', 'agentMessage', 'reasoning', 'plan']);
const PCODX_NAMES = new Set<string>(Object.values(PCODX_TOOLS));

/**
 * One ordinary turn of a primary thread while it runs: the user's input (from `turn/start`), the
 * completed items and the receipts of pcodx tool calls answered during it.
 */
export class TurnRecord {
  /** Known once the `turn/start` response or `turn/started` arrives. */
  turnId: string | undefined;
  readonly #answers: string[] = [];
  readonly #transcript: string[] = [];
  readonly #receipts: string[] = [];
  readonly #steers: string[] = [];

  constructor(
    /** The client's thread id (the durable one), used in the rows' `source`. */
    readonly clientThreadId: string,
    readonly userText: string,
  ) {}

  /**
   * Adds an `item/completed` item: agent messages become the answer, tool items the transcript
   * (each item's JSON, with no `<` in it, so nothing inside can close the untrusted block).
   */
  addItem(item: unknown): void {
    if (item === null || typeof item !== 'object') return;
    const it = item as { type?: unknown; text?: unknown; tool?: unknown; namespace?: unknown };
    if (it.type === 'agentMessage') {
      if (typeof it.text === 'string' && it.text !== '') this.#answers.push(it.text);
      return;
    }
    if (typeof it.type !== 'string' || NOT_TRANSCRIPT.has(it.type)) return;
    // The proxy's own tool calls are recorded as receipts, not as raw items.
    if (it.type === 'dynamicToolCall' && (it.namespace === null || it.namespace === undefined) && PCODX_NAMES.has(String(it.tool))) return;
    // `<` as JSON's `\u003c` (the same JSON): a tool's output holding `</codex-tool-transcript>`
    // would otherwise end the untrusted block early, and what followed would read as outside it.
    this.#transcript.push(`${it.type}: ${cut(JSON.stringify(item).replaceAll('<', '\\u003c'), MAX_ITEM_CHARS)}`);
  }

  /** Adds the text of a `turn/steer` the app-server accepted during this turn (a user message, in order). */
  addSteer(text: string): void {
    this.#steers.push(text);
  }

  /** Adds the receipt of a pcodx tool call answered in this turn. */
  addReceipt(receipt: string): void {
    this.#receipts.push(receipt);
  }

  /**
   * The rows of the turn, recorded in one transaction: the user row, a user row per accepted
   * `turn/steer` (in the order they were accepted), then one assistant row
   * holding the final answer, the native tool transcript (in a block marked untrusted: tool output
   * may carry text written by anyone) and the pcodx receipts. Sources are
   * `codex-app-server:<thread>:<turn>`, the assistant's with `:untrusted` appended.
   */
  rows(): LedgerRecordInput[] {
    const source = `codex-app-server:${this.clientThreadId}:${this.turnId ?? 'unknown'}`;
    const parts: string[] = [];
    if (this.#answers.length) parts.push(this.#answers.join('\n\n'));
    if (this.#transcript.length) parts.push(['<codex-tool-transcript trust="untrusted">', ...this.#transcript, '</codex-tool-transcript>'].join('\n'));
    if (this.#receipts.length) parts.push(['<pcodx-receipts>', ...this.#receipts, '</pcodx-receipts>'].join('\n'));
    return [
      { role: 'user', text: this.userText, source },
      ...this.#steers.map((text) => ({ role: 'user' as const, text, source: `${source}:steer` })),
      { role: 'assistant', text: parts.length ? parts.join('\n\n') : '(the turn ended without an answer)', source: `${source}:untrusted` },
    ];
  }
}

/**
 * The user's text of a `turn/start` input: its `text` items joined with `\n`; other items (images,
 * mentions) become a `[<type> input]` line so the row is never empty.
 */
export function userTextOf(input: unknown): string {
  const items = Array.isArray(input) ? input : [];
  const lines = items.map((i: any) => (i && i.type === 'text' && typeof i.text === 'string' ? i.text : `[${String(i?.type ?? 'unknown')} input]`));
  const text = lines.join('\n');
  return text === '' ? '[empty input]' : text;
}

/** `text` cut to `max` code points, with a note of how much was left out. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max).join('')}…[${points.length - max} more characters cut]`;
}

/**
 * A completed turn of a `thread/resume` or `thread/read` response (`thread.turns[]`: `{id, status,
 * items}`) as a {@link TurnRecord}: the `userMessage` items are the user's text (the first one;
 * later ones were steers), the rest go through {@link TurnRecord.addItem}. Undefined for a turn
 * that did not complete or holds no user message.
 */
export function turnRecordOf(clientThreadId: string, turn: unknown): TurnRecord | undefined {
  if (turn === null || typeof turn !== 'object') return undefined;
  const t = turn as { id?: unknown; status?: unknown; items?: unknown };
  if (t.status !== 'completed' || !Array.isArray(t.items)) return undefined;
  const users = t.items.filter((i: any) => i?.type === 'userMessage');
  if (users.length === 0) return undefined;
  const record = new TurnRecord(clientThreadId, userTextOf((users[0] as any).content));
  if (typeof t.id === 'string') record.turnId = t.id;
  for (const steer of users.slice(1)) record.addSteer(userTextOf((steer as any).content));
  for (const item of t.items) record.addItem(item);
  return record;
}
