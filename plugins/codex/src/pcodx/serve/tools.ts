import type { LedgerHandle } from '@cordon/plugin-api';
import { PCODX_TOOLS, pcodxToolSpecs, withPcodxInstructions } from '../tools/definitions.js';
import { runPcodxTool, toolResponse, type ToolCallResponse } from '../tools/call.js';

/** The names of the tools the proxy answers itself. */
const PCODX_NAMES: ReadonlySet<string> = new Set(Object.values(PCODX_TOOLS));

/** The line the serve adds to the developer instructions (the Rust pcodx, SichangHe/partial_compact_codex, the TS proof's extra line). */
export const FRESH_THREAD_NOTE = 'After a successful partial_compact, the next turn starts on a fresh thread seeded with the compacted render.';

/**
 * `initialize` params with `capabilities.experimentalApi` set (the Codex app-server protocol, docs/references.md#codex-app-server-protocol): dynamic tools are
 * experimental, so without the opt-in app-server rejects them. `capabilities` may be null or
 * missing; everything else is kept.
 */
export function optInExperimental(params: unknown): Record<string, unknown> {
  const p = isObject(params) ? { ...params } : {};
  p.capabilities = { ...(isObject(p.capabilities) ? p.capabilities : {}), experimentalApi: true };
  return p;
}

/**
 * True for a client `thread/start` that opens a primary conversation (the Codex app-server protocol, docs/references.md#codex-app-server-protocol): not
 * ephemeral, and `threadSource` null/absent or `"user"`. The TUI's title thread is neither.
 */
export function isPrimaryStart(params: unknown): boolean {
  if (!isObject(params)) return true;
  return params.ephemeral !== true && (params.threadSource === undefined || params.threadSource === null || params.threadSource === 'user');
}

/**
 * A primary `thread/start` with the pcodx tools **appended** to any `dynamicTools` the client
 * sent (the TUI sends its own `codex_tui` namespace; a tool whose name is already there is not
 * added again) and the pcodx block appended to `developerInstructions`.
 */
export function withPcodxTools(params: unknown): Record<string, unknown> {
  const p = isObject(params) ? { ...params } : {};
  const existing = Array.isArray(p.dynamicTools) ? (p.dynamicTools as unknown[]) : [];
  const names = new Set(existing.map((t) => (isObject(t) ? t.name : undefined)));
  p.dynamicTools = [...existing, ...pcodxToolSpecs().filter((t) => !names.has(t.name))];
  p.developerInstructions = withInstructions(p.developerInstructions);
  return p;
}

/** `thread/resume` / `thread/fork` params with the instructions appended (tools stay those of the thread's start). */
export function withPcodxInstructionsOnly(params: unknown): Record<string, unknown> {
  const p = isObject(params) ? { ...params } : {};
  p.developerInstructions = withInstructions(p.developerInstructions);
  return p;
}

function withInstructions(existing: unknown): string {
  const text = withPcodxInstructions(typeof existing === 'string' ? existing : null);
  return text.includes(FRESH_THREAD_NOTE) ? text : `${text}\n${FRESH_THREAD_NOTE}`;
}

/** The `thread/start` fields a resume or fork shares with a start (the generated 0.171 schema). */
const SHARED_START_FIELDS = ['model', 'modelProvider', 'serviceTier', 'cwd', 'approvalPolicy', 'approvalsReviewer', 'sandbox', 'permissions', 'config', 'baseInstructions', 'developerInstructions', 'personality'];

/**
 * The params of a fresh upstream thread: `ephemeral: true`, `historyMode: null` (an ephemeral
 * paginated thread is refused for forks), `threadSource: "user"`. From a primary start: its
 * (already augmented) params; from a resume or fork: the shared fields plus the pcodx tools.
 */
export function freshThreadParams(method: string, params: Record<string, unknown>): Record<string, unknown> {
  let base: Record<string, unknown>;
  if (method === 'thread/start') {
    base = { ...params };
  } else {
    base = {};
    for (const key of SHARED_START_FIELDS) if (params[key] !== undefined) base[key] = params[key];
    base = withPcodxTools(base);
  }
  return { ...base, ephemeral: true, historyMode: null, threadSource: 'user' };
}

/** True for an `item/tool/call` the proxy answers: no namespace and one of the three pcodx names. */
export function isPcodxToolCall(method: string, params: unknown): boolean {
  return method === 'item/tool/call' && isObject(params) && (params.namespace === undefined || params.namespace === null) && PCODX_NAMES.has(String(params.tool));
}

/** What answering one tool call produced. */
export interface ToolAnswer {
  readonly response: ToolCallResponse;
  /** Set for a `partial_compact` that stored its ranges. */
  readonly compacted?: { readonly receipt: string };
}

/**
 * Runs a pcodx tool call through the same validation and `compact` hook as the CLI
 * (`runPcodxTool`) and wraps the result for app-server (the Rust pcodx, SichangHe/partial_compact_codex). A successful
 * `partial_compact` also yields a one-line receipt for the ingested turn. Database errors are
 * thrown.
 */
export async function answerToolCall(ledger: LedgerHandle, sessionId: string, params: { tool: string; arguments?: unknown }): Promise<ToolAnswer> {
  const text = await runPcodxTool(ledger, sessionId, params.tool, params.arguments ?? {});
  const response = toolResponse(text);
  if (params.tool !== PCODX_TOOLS.compact || !response.success) return { response };
  const parsed = JSON.parse(text) as { ranges_compacted: Array<{ compaction_id: string; from_message_id: string; to_message_id: string; n_messages_replaced: number }> };
  const receipt = parsed.ranges_compacted.map((r) => `partial_compact: ${r.compaction_id} replaced ${r.from_message_id}..${r.to_message_id} (${r.n_messages_replaced} messages)`).join('\n');
  return { response, compacted: { receipt } };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
