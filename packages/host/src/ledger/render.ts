import type { LedgerCompaction, LedgerModelItem, VisibleEntry } from '@cordon/plugin-api';
import { refused } from './errors.js';

/**
 * The text render (the Rust pcodx, SichangHe/partial_compact_codex), byte-exact: each visible entry is its text (a
 * message's exact text or a compaction's summary), a newline, and `<aboveturn id="ID"/>`; blocks
 * are joined by one blank line; no roles; no trailing newline (printers add one). A text that
 * ends in `\n` keeps it: `text\n\n<aboveturn …/>`.
 */
export function renderText(entries: readonly VisibleEntry[]): string {
  return entries.map(block).join(BLOCK_SEPARATOR);
}

/** What goes between a block's text and its id, and after the id (the ledger's SQL builds blocks too). */
export const ABOVETURN_OPEN = '\n<aboveturn id="';
export const ABOVETURN_CLOSE = '"/>';
/** Between two blocks: one blank line. */
export const BLOCK_SEPARATOR = '\n\n';

/** One block of the text render: `text\n<aboveturn id="ID"/>`. */
export function renderBlock(text: string, id: string): string {
  return `${text}${ABOVETURN_OPEN}${id}${ABOVETURN_CLOSE}`;
}

function block(e: VisibleEntry): string {
  return renderBlock(e.text, e.id);
}

/**
 * The render for people (`show --roles`): {@link renderText}'s blocks, each under one header
 * line: `[role]` for a message, `[compaction msgA..msgB, as role]` for a compaction (its role is
 * the strongest it covers).
 */
export function renderWithRoles(entries: readonly VisibleEntry[]): string {
  return entries
    .map((e) => (e.kind === 'message' ? `${messageRoleLine(e.role)}${block(e)}` : `${compactionRoleLine(e.compaction, e.role)}${block(e)}`))
    .join(BLOCK_SEPARATOR);
}

/** The header line (newline included) above a message's block in {@link renderWithRoles}: `[role]`. */
export function messageRoleLine(role: string): string {
  return `[${role}]\n`;
}

/** The header line (newline included) above a compaction's block in {@link renderWithRoles}: `[compaction msgA..msgB, as role]`. */
export function compactionRoleLine(compaction: LedgerCompaction, role: string): string {
  return `[compaction ${compaction.fromMessageId}..${compaction.toMessageId}, as ${role}]\n`;
}

/**
 * The role-aware render for model input (the Rust pcodx, SichangHe/partial_compact_codex): one Responses API
 * `message` item per visible entry, text as in {@link renderText}'s block, `output_text` for
 * assistant and `input_text` otherwise. A compaction takes the strongest role it covers. A
 * visible `tool` row is refused (`CORDON_LEDGER_REFUSED`): a raw tool output item needs the call
 * id the ledger does not keep, so the row must be compacted together with its assistant call.
 */
export function renderModelItems(entries: readonly VisibleEntry[]): LedgerModelItem[] {
  return entries.map((e) => {
    if (e.role === 'tool') {
      throw refused(`visible tool message ${e.id} cannot be sent to a model without its call id; compact it together with the assistant message that called the tool`, { id: e.id });
    }
    return { type: 'message', role: e.role, content: [{ type: e.role === 'assistant' ? 'output_text' : 'input_text', text: block(e) }] };
  });
}
