import { createRequire } from 'node:module';

/** `strategy` and `kv_cache_status` of every line: what the context was and what is not claimed. */
export const CONTEXT_STRATEGY = 'fresh_ephemeral_thread_plus_thread/inject_items';
export const KV_CACHE_STATUS = 'fresh_app_server_thread; active_thread_kv_reuse_not_claimed';

/** `tokenUsage.last` of `thread/tokenUsage/updated` (the Codex app-server protocol, docs/references.md#codex-app-server-protocol). */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteInputTokens?: number;
  readonly outputTokens: number;
  readonly reasoningOutputTokens: number;
  readonly totalTokens: number;
}

/**
 * The Codex version in an `initialize` `userAgent` (the Rust pcodx, SichangHe/partial_compact_codex): the text before the first
 * space, after its first `/`, when it is a plain `x.y.z`; else null. 0.171's agent begins with
 * the client's name (`pcodx_model_context_controller/0.171.0 (…)`), so no prefix allow-list.
 */
export function codexVersion(userAgent: unknown): string | null {
  if (typeof userAgent !== 'string') return null;
  const head = userAgent.split(' ')[0] ?? '';
  const slash = head.indexOf('/');
  const version = slash < 0 ? '' : head.slice(slash + 1);
  return /^\d+\.\d+\.\d+$/.test(version) ? version : null;
}

let ownVersion: string | undefined;
/** This plugin's version (its package.json), the `pcodx_version` of each line. */
export function pcodxVersion(): string {
  ownVersion ??= String((createRequire(import.meta.url)('../../../package.json') as { version?: unknown }).version ?? '0.0.0');
  return ownVersion;
}

/** Inputs of {@link usageRecord}. */
export interface UsageInputs {
  readonly correlationId: string;
  readonly codexVersion: string | null;
  readonly nActiveRanges: number;
  readonly nSourceMessagesReplaced: number;
  readonly nInjectedItems: number;
  readonly injectedJsonBytes: number;
  readonly usage: TokenUsage;
  readonly modelContextWindow: number | null;
  readonly now?: number;
}

/**
 * One usage line (the Rust pcodx, SichangHe/partial_compact_codex field set). Counts and versions only: no conversation text, no
 * session name or thread id (the session appears as its random `pcses-…` correlation id), no paths.
 */
export function usageRecord(inputs: UsageInputs): Record<string, unknown> {
  const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const input = n(inputs.usage.inputTokens);
  const cached = n(inputs.usage.cachedInputTokens);
  return {
    schema_version: 1,
    event: 'model_turn_completed',
    recorded_at_unix_ms: inputs.now ?? Date.now(),
    pcodx_version: pcodxVersion(),
    pcodx_session_correlation_id: inputs.correlationId,
    codex_version: inputs.codexVersion,
    compaction: { applied: inputs.nActiveRanges > 0, n_active_ranges: inputs.nActiveRanges, n_source_messages_replaced: inputs.nSourceMessagesReplaced },
    context: { strategy: CONTEXT_STRATEGY, kv_cache_status: KV_CACHE_STATUS, n_injected_items: inputs.nInjectedItems, injected_json_bytes: inputs.injectedJsonBytes },
    usage: {
      scope: 'tokenUsage.last',
      input_tokens: input,
      cached_input_tokens: cached,
      uncached_input_tokens: Math.max(0, input - cached),
      cache_write_input_tokens: n(inputs.usage.cacheWriteInputTokens),
      output_tokens: n(inputs.usage.outputTokens),
      reasoning_output_tokens: n(inputs.usage.reasoningOutputTokens),
      total_tokens: n(inputs.usage.totalTokens),
      model_context_window_tokens: inputs.modelContextWindow,
    },
  };
}
