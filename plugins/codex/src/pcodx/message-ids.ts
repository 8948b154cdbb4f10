import { fillPrompt } from './prompts/fill.js';

/** Ids per line in the helper (the Rust pcodx, SichangHe/partial_compact_codex). */
const PER_LINE = 8;
/** Above this many ids only the head and the tail are listed. */
const MAX_LISTED = 96;
const HEAD = 16;
const TAIL = 80;

/**
 * The id lines of the current-session-message-ids helper (the Rust pcodx, SichangHe/partial_compact_codex): `- ` then up to 8
 * ids joined by `, `; above 96 ids, the first 16, a line saying how many were left out, and the
 * last 80; one line saying so when there are none.
 */
export function messageIdLines(ids: readonly string[]): string[] {
  if (ids.length === 0) return ['- (no message ids yet: record or send a message first)'];
  const lines = (chunk: readonly string[]) => {
    const out: string[] = [];
    for (let i = 0; i < chunk.length; i += PER_LINE) out.push(`- ${chunk.slice(i, i + PER_LINE).join(', ')}`);
    return out;
  };
  if (ids.length <= MAX_LISTED) return lines(ids);
  const omitted = ids.length - HEAD - TAIL;
  return [
    ...lines(ids.slice(0, HEAD)),
    `- … ${omitted} ids between ${ids[HEAD]} and ${ids[ids.length - TAIL - 1]} are not listed; find older content with your search/read tools, then use its ids`,
    ...lines(ids.slice(-TAIL)),
  ];
}

/** The whole helper text: the `current-session-message-ids.md` fragment with the id lines filled in. */
export function messageIdsHelper(ids: readonly string[]): string {
  return fillPrompt('current-session-message-ids.md', { MESSAGE_ID_LINES: messageIdLines(ids).join('\n') });
}
