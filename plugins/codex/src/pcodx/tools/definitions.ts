import { PROMPT_FRAGMENTS } from '../prompts/fragments.js';
import { fillPrompt, instructionPointer } from '../prompts/fill.js';

/** The three tool names a pcodx-aware Codex thread gets (the Rust pcodx, SichangHe/partial_compact_codex). */
export const PCODX_TOOLS = Object.freeze({
  instructions: 'partial_compact_instructions',
  messageIds: 'partial_compact_current_session_message_ids',
  compact: 'partial_compact',
} as const);

/** A Codex app-server dynamic tool of type `function` (the Codex app-server protocol, docs/references.md#codex-app-server-protocol). */
export interface DynamicFunctionTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

const text = (name: keyof typeof PROMPT_FRAGMENTS) => PROMPT_FRAGMENTS[name].trim();
const noArguments = { type: 'object', properties: {}, additionalProperties: false };

/**
 * The dynamic tool specs for `thread/start.dynamicTools` (the Rust pcodx, SichangHe/partial_compact_codex): two argument-less
 * tools and `partial_compact`, whose `ranges` items need `from_message_id`, `to_message_id` and
 * `summary` (strings, no other keys). Descriptions come from the prompt fragments.
 */
export function pcodxToolSpecs(): DynamicFunctionTool[] {
  return [
    { type: 'function', name: PCODX_TOOLS.instructions, description: text('partial-compact-instruction-tool-description.md'), inputSchema: noArguments },
    { type: 'function', name: PCODX_TOOLS.messageIds, description: text('current-session-message-ids-tool-description.md'), inputSchema: noArguments },
    {
      type: 'function',
      name: PCODX_TOOLS.compact,
      description: fillPrompt('partial-compact-tool-description.md', { INSTRUCTION_POINTER: instructionPointer() }).trim(),
      inputSchema: {
        type: 'object',
        properties: {
          ranges: {
            type: 'array',
            minItems: 1,
            description: text('partial-compact-arg-ranges.md'),
            items: {
              type: 'object',
              properties: {
                from_message_id: { type: 'string', description: text('partial-compact-range-from-message-id.md') },
                to_message_id: { type: 'string', description: text('partial-compact-range-to-message-id.md') },
                summary: { type: 'string', description: text('partial-compact-range-summary.md') },
              },
              required: ['from_message_id', 'to_message_id', 'summary'],
              additionalProperties: false,
            },
          },
        },
        required: ['ranges'],
        additionalProperties: false,
      },
    },
  ];
}

/** First line of the developer-instructions block; its presence means the block is there already. */
const BLOCK_HEAD = 'PCODX partial compaction is available through the dynamic tools partial_compact, partial_compact_current_session_message_ids and partial_compact_instructions.';

/**
 * Appends the pcodx block to a thread's developer instructions (the Rust pcodx, SichangHe/partial_compact_codex): the existing
 * text, a blank line, then the block (the instruction fragment and how to use visible ids).
 * Returns `existing` unchanged when the block is already in it.
 */
export function withPcodxInstructions(existing: string | null | undefined): string {
  if (existing && existing.includes(BLOCK_HEAD)) return existing;
  const block = [
    BLOCK_HEAD,
    PROMPT_FRAGMENTS['partial-compact-instruction.md'].trim(),
    'Use the visible msg… and cmp… ids shown in <aboveturn id="…"/> tags as endpoints; call partial_compact_current_session_message_ids to refresh them.',
    'cmp… ids name earlier compactions; use them as endpoints to merge those compactions into a larger range.',
  ].join('\n');
  return existing ? `${existing}\n\n${block}` : block;
}
