import { cutCodePoints, type LedgerHandle, type LedgerRangeRequest } from '@cordon/plugin-api';
import { isUserError } from '../errors.js';
import { messageIdsHelper } from '../message-ids.js';
import { PROMPT_FRAGMENTS } from '../prompts/fragments.js';
import { PCODX_TOOLS } from './definitions.js';

/** Longest summary a tool call may store, in Unicode code points (the Rust pcodx, SichangHe/partial_compact_codex step 6). */
export const MAX_TOOL_SUMMARY = 2000;
const TRUNCATION_MARK = '[...truncated]';

/** What answers an app-server `item/tool/call` (the Rust pcodx, SichangHe/partial_compact_codex). */
export interface ToolCallResponse {
  readonly contentItems: ReadonlyArray<{ readonly type: 'inputText'; readonly text: string }>;
  readonly success: boolean;
}

/** Wraps a tool's text result; `success` is false exactly when the text is JSON with an `error` key. */
export function toolResponse(text: string): ToolCallResponse {
  let failed = false;
  try {
    const parsed: unknown = JSON.parse(text);
    failed = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && 'error' in parsed;
  } catch {
    failed = false;
  }
  return { contentItems: [{ type: 'inputText', text }], success: !failed };
}

const errorText = (message: string) => JSON.stringify({ error: message });

/**
 * Runs one pcodx tool for the session `sessionId` and returns its result text: the trimmed
 * instruction fragment, the ids helper, or `partial_compact`'s JSON (see
 * {@link partialCompact}). An unknown tool gets an error JSON. Database errors are thrown.
 */
export async function runPcodxTool(ledger: LedgerHandle, sessionId: string, tool: string, args: unknown): Promise<string> {
  switch (tool) {
    case PCODX_TOOLS.instructions:
      return PROMPT_FRAGMENTS['partial-compact-instruction.md'].trim();
    case PCODX_TOOLS.messageIds:
      return messageIdsHelper(await ledger.visibleIds(sessionId));
    case PCODX_TOOLS.compact:
      return partialCompact(ledger, sessionId, args);
    default:
      return errorText(`unknown tool \`${tool}\``);
  }
}

interface RawRange {
  from_message_id?: unknown;
  to_message_id?: unknown;
  summary?: unknown;
  target_session_id?: unknown;
  session_id?: unknown;
}

const filled = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * `partial_compact` (the Rust pcodx, SichangHe/partial_compact_codex, OpenCode-compatible arguments
 * `{ranges:[{from_message_id,to_message_id,summary}]}`, as an object or a JSON string), in this
 * order: unparsable JSON; ranges with every field empty are dropped and none left is an error;
 * an incomplete range; `target_session_id` and `session_id` that differ; a selector naming
 * another session; summaries cut to {@link MAX_TOOL_SUMMARY} code points (on a character
 * boundary, lone surrogates replaced: `cutCodePoints`) plus `[...truncated]`;
 * then the ledger's own rules, whose refusals come back as `session <id>: <message>`.
 *
 * Success: `{ranges_compacted:[{session_id, compaction_id, from_message_id, to_message_id,
 * n_messages_replaced, truncated, warning?}] (request order), n_ranges_compacted,
 * n_messages_replaced, truncated, active_compactions, total_known_messages_replaced,
 * session_id, note}`. Failure: `{error}`.
 */
export async function partialCompact(ledger: LedgerHandle, sessionId: string, args: unknown): Promise<string> {
  let parsed = args;
  if (typeof args === 'string') {
    try {
      parsed = JSON.parse(args);
    } catch (error) {
      return errorText(`invalid partial_compact args: ${(error as Error).message}`);
    }
  }
  const list = parsed !== null && typeof parsed === 'object' && Array.isArray((parsed as { ranges?: unknown }).ranges) ? ((parsed as { ranges: unknown[] }).ranges as RawRange[]) : [];
  const ranges = list.filter((r) => r !== null && typeof r === 'object' && (filled(r.from_message_id) || filled(r.to_message_id) || filled(r.summary)));
  if (ranges.length === 0) return errorText('provide ranges with at least one complete range');
  if (ranges.some((r) => !filled(r.from_message_id) || !filled(r.to_message_id) || !filled(r.summary))) {
    return errorText('each range must include from_message_id, to_message_id, and summary');
  }
  for (const r of ranges) {
    const target = filled(r.target_session_id) ? r.target_session_id : undefined;
    const legacy = filled(r.session_id) ? r.session_id : undefined;
    if (target !== undefined && legacy !== undefined && target !== legacy) return errorText('target_session_id and session_id must match when both are given');
    const named = target ?? legacy;
    if (named !== undefined && named !== sessionId) return errorText(`partial_compact only compacts the current session (${sessionId}); omit session selectors`);
  }
  const truncated: boolean[] = [];
  const requests: LedgerRangeRequest[] = ranges.map((r) => {
    const { text, cut } = cutCodePoints(r.summary as string, MAX_TOOL_SUMMARY);
    truncated.push(cut);
    return { from: r.from_message_id as string, to: r.to_message_id as string, summary: cut ? text + TRUNCATION_MARK : text };
  });
  let result;
  try {
    result = await ledger.compact(sessionId, requests);
  } catch (error) {
    if (isUserError(error)) return errorText(`session ${sessionId}: ${(error as Error).message}`);
    throw error;
  }
  return JSON.stringify({
    ranges_compacted: result.ranges.map((r, i) => ({
      session_id: sessionId,
      compaction_id: r.id,
      from_message_id: r.from,
      to_message_id: r.to,
      n_messages_replaced: r.nMessagesReplaced,
      truncated: truncated[i],
      ...(r.warning ? { warning: r.warning } : {}),
    })),
    n_ranges_compacted: result.ranges.length,
    n_messages_replaced: result.nMessagesReplaced,
    truncated: truncated.some(Boolean),
    active_compactions: result.activeCompactions,
    total_known_messages_replaced: result.totalKnownMessagesReplaced,
    session_id: sessionId,
    note: 'The compacted ranges leave the model-visible view from the next call on; the original messages stay in the session log.',
  });
}
