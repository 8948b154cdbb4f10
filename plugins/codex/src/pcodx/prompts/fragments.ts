/**
 * pcodx prompt fragments, in our own words, one per idea that the shared prompt set of
 * agent_partial_compact_common describes (the Rust pcodx, SichangHe/partial_compact_codex). Names match that set's
 * file names so `cordon pcodx prompts NAME` finds the same things; placeholders are the same
 * `{{NAME}}` markers, filled by `fillPrompt`.
 */
export const PROMPT_FRAGMENTS = Object.freeze({
  'partial-compact-instruction.md': `<instruction name="agent-partial-compact">
Partial compaction lets you shrink this conversation without losing its thread: you pick one or
more ranges of earlier messages, and each range is replaced, for every later model call, by a
summary you write. The original messages stay in the session log; only the model-visible view
changes.

Compact context that no longer earns its place:
- bulky tool output you have already read and acted on;
- detours that are resolved, dead ends, repeated searches or investigations;
- edits that later edits replaced.

Each summary should say what was removed, why dropping it is safe, and the durable facts a later
turn may need (file paths, decisions, numbers). Mention old message ids only when they help
someone recover the originals.

Never compact away, and always carry into the summary when a range touches them:
- system, developer, tool and user instructions that still apply;
- what the user asked for, in their words (bulky material they pasted may be summarized);
- decisions, open questions, blockers and risks;
- anything the current task still needs.

Call the tool once with every range you want compacted:
partial_compact({"ranges": [{"from_message_id": "...", "to_message_id": "...", "summary": "..."}]})
For example, two ranges in one call:
partial_compact({"ranges": [
  {"from_message_id": "msg3", "to_message_id": "msg9", "summary": "Searched the repo for the config loader; it is src/config/load.ts. Nothing else from this search is needed."},
  {"from_message_id": "msg14", "to_message_id": "msg20", "summary": "Ran the test suite three times while fixing the date parser; it passes now. Output not needed."}
]})

Endpoints are the visible ids shown as <aboveturn id="..."/> after each message, inclusive.
\`cmp...\` ids are earlier compactions; use one as an endpoint to fold it into a larger range.
If you do not have the current ids, call partial_compact_current_session_message_ids.

Two ways to work:
- tail compaction: compact the older part of the conversation and keep the recent turns as they are;
- full-session compaction: when most of the context is stale, replace nearly all of it with a few
  summaries, keeping the latest request and what it needs verbatim.

Aim to keep the context below half of the model's window.
</instruction>
`,
  'partial-compact-tool-description.md': `Replace ranges of earlier messages in this session with summaries you write, so later turns see less stale context. {{INSTRUCTION_POINTER}}
`,
  'partial-compact-instruction-pointer.md': `Unless its text is already in your context, call partial_compact_instructions first and follow it.
`,
  'partial-compact-instruction-tool-description.md': `Returns the full instructions for choosing ranges and writing summaries with partial_compact.
`,
  'partial-compact-arg-ranges.md': `Every range to compact in this call, each with its inclusive endpoints and its summary. Ranges must not overlap.
`,
  'partial-compact-range-from-message-id.md': `First visible id of the range, inclusive: usually msg..., or cmp... to fold in an earlier compaction.
`,
  'partial-compact-range-to-message-id.md': `Last visible id of the range, inclusive: usually msg..., or cmp...; it may equal from_message_id.
`,
  'partial-compact-range-summary.md': `Short replacement for the range: what was removed, why that is safe, and the facts later turns still need.
`,
  'current-session-message-ids-tool-description.md': `Lists the ids currently visible in this session, to pick partial_compact endpoints from.
`,
  'current-session-message-ids.md': `# Visible message ids

These are the ids you can use as from_message_id and to_message_id; some hosts also list cmp... ids, which stand for earlier compactions.

{{MESSAGE_ID_LINES}}
`,
  'partial-compact-reminder.md': `{{CONTEXT_STATUS}}
`,
  'tui-partial-compact.md': `{{INSTRUCTION_POINTER}}

The user marked a checkpoint named "{{CHECKPOINT_TITLE}}". Compact the range from {{FROM_MESSAGE_ID}} to {{TO_MESSAGE_ID}} with one partial_compact call whose summary keeps what the work after the checkpoint still needs. You may add further ranges to the same call if they do not overlap this one.
`,
} as const);

/** A fragment name (`partial-compact-instruction.md` …). */
export type PromptName = keyof typeof PROMPT_FRAGMENTS;
