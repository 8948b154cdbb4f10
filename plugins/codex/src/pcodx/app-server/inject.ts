import type { LedgerModelItem } from '@cordon/plugin-api';
import { APP_SERVER_WS_LIMITS } from './limits.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant']);

/**
 * Checks items before `thread/inject_items` (which validates nothing, the Codex app-server protocol, docs/references.md#codex-app-server-protocol): each must be
 * a `message` with a known role and a non-empty list of `input_text`/`output_text` parts holding
 * strings (`output_text` only for the assistant). Throws naming the first bad item.
 */
export function checkInjectItems(items: readonly LedgerModelItem[]): void {
  items.forEach((item, i) => {
    const ok =
      item?.type === 'message' &&
      ROLES.has(item.role) &&
      Array.isArray(item.content) &&
      item.content.length > 0 &&
      item.content.every((c) => typeof c?.text === 'string' && (c.type === (item.role === 'assistant' ? 'output_text' : 'input_text')));
    if (!ok) throw new Error(`injected item ${i} is not a well-formed message item`);
  });
}

/**
 * JSON bytes of items per `thread/inject_items` call: a frame the app-server's websocket reader
 * takes ({@link APP_SERVER_WS_LIMITS}), less room for the call's envelope. The serve and `model-turn`
 * (stdio) both keep to it.
 */
export const INJECT_BATCH_BYTES = APP_SERVER_WS_LIMITS.frameBytes - 64 * 1024;

/** How a history is cut for `thread/inject_items` ({@link planInjection}). */
export interface InjectionPlan<T> {
  /** The items in order, in batches (none empty). */
  readonly batches: T[][];
  /** Bytes of the items as one JSON array (`Buffer.byteLength(JSON.stringify(items))`), without building it. */
  readonly jsonBytes: number;
}

/**
 * Splits items into batches for successive `thread/inject_items` calls (each appends its items, in
 * order, to the thread's history): a batch holds as many items as fit in `maxBytes` of JSON (each
 * item counted with one separator byte); an item larger than that goes in a batch of its own.
 * Empty input gives no batches.
 */
export function planInjection<T>(items: readonly T[], maxBytes: number): InjectionPlan<T> {
  const batches: T[][] = [];
  let batch: T[] = [];
  let bytes = 0;
  let total = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    total += size;
    if (batch.length > 0 && bytes + size > maxBytes) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  // `[` and `]`, and n - 1 commas where the sizes counted n separators.
  return { batches, jsonBytes: items.length ? total + 1 : 2 };
}

/** The batches of {@link planInjection}. */
export function injectBatches<T>(items: readonly T[], maxBytes: number): T[][] {
  return planInjection(items, maxBytes).batches;
}

/** A JSON-RPC request to the app-server: resolves with its result, rejects with its error. */
export type AppServerCall = (method: string, params: unknown) => Promise<unknown>;

/**
 * Seeds thread `threadId` with `items` (its history, in order) through `call`: one
 * `thread/inject_items` per batch of {@link planInjection} with `maxBytes` (default
 * {@link INJECT_BATCH_BYTES}), each awaited before the next, so the history lands in order. Empty
 * `items` make no call. Rejects with the first failing call's error (earlier batches stay injected:
 * callers use a fresh thread and drop it). Returns the number of calls and the JSON bytes of the items.
 */
export async function injectHistory(call: AppServerCall, threadId: string, items: readonly LedgerModelItem[], maxBytes = INJECT_BATCH_BYTES): Promise<{ calls: number; jsonBytes: number }> {
  const plan = planInjection(items, maxBytes);
  for (const batch of plan.batches) await call('thread/inject_items', { threadId, items: batch });
  return { calls: plan.batches.length, jsonBytes: plan.jsonBytes };
}
