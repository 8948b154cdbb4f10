import type { LedgerModelItem } from '@cordon/plugin-api';

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
 * Splits items into batches for successive `thread/inject_items` calls (each appends its items, in
 * order, to the thread's history): a batch holds as many items as fit in `maxBytes` of JSON; an item
 * larger than that goes in a batch of its own. Empty input gives no batches.
 */
export function injectBatches<T>(items: readonly T[], maxBytes: number): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (batch.length > 0 && bytes + size > maxBytes) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
