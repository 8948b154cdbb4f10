/**
 * JSON-RPC messages as the Codex app-server speaks them (the Codex app-server protocol, docs/references.md#codex-app-server-protocol): one
 * message per text frame, no `"jsonrpc"` field, ids that are numbers or strings. A request is
 * `{id, method, params?}`, a notification `{method, params?}`, a response `{id, result}` or
 * `{id, error: {code, message}}`.
 */

/**
 * The largest message the serve reads, in bytes, on both sides: 128 MiB, the limit Codex raised its
 * own remote client to so that large `thread/resume` responses fit
 * (https://github.com/openai/codex/pull/19920, fixing openai/codex#19837). What it sends to the
 * app-server is bound by that reader's smaller limits (fragments.ts).
 */
export const MAX_FRAME_BYTES = 128 * 1024 * 1024;

/** A request or response id: the protocol allows numbers and strings. */
export type RpcId = string | number;

/** Any well-formed message, parsed. `params`/`result` stay untyped: the proxy reads only a few fields. */
export interface RpcMessage {
  id?: RpcId;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
  [key: string]: unknown;
}

/** What a text frame turned out to be. */
export type Classified =
  | { readonly kind: 'request'; readonly message: RpcMessage & { id: RpcId; method: string } }
  | { readonly kind: 'notification'; readonly message: RpcMessage & { method: string } }
  | { readonly kind: 'response'; readonly message: RpcMessage & { id: RpcId } }
  | { readonly kind: 'invalid'; readonly code: number; readonly reason: string; readonly id: RpcId | null };

/** JSON-RPC error codes the proxy itself answers with. */
export const RPC_ERRORS = Object.freeze({
  /** The frame is not JSON. */
  parse: -32700,
  /** JSON, but not a message (array, wrong id type, neither method nor id, reserved or duplicate id). */
  invalidRequest: -32600,
  /** The proxy could not do what the request needed (upstream gone, ledger failure). */
  internal: -32603,
  /** The upstream app-server closed or could not be reached (server-defined range). */
  upstreamGone: -32000,
});

/**
 * An id the app-server answers: a string, or an integer JavaScript holds exactly (|n| ≤ 2^53 − 1).
 * The app-server reads numeric ids as 64-bit integers and never answers a request whose id is not
 * one (Codex 0.171, measured: `1.5` and `1e20` get no response at all), so such a request would wait
 * forever; and an integer past 2^53 − 1 would come back as another number once parsed here.
 */
const isId = (v: unknown): v is RpcId => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

/**
 * Parses and classifies one text frame. Never throws: a frame that is not JSON is `invalid` with
 * code -32700; JSON that is not a single message object is `invalid` with -32600 (its id is
 * echoed when it has a usable one, else null).
 */
export function classify(text: string): Classified {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', code: RPC_ERRORS.parse, reason: 'parse error: the frame is not JSON', id: null };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'invalid', code: RPC_ERRORS.invalidRequest, reason: 'invalid request: a frame must hold one JSON-RPC message object (batches are not supported)', id: null };
  }
  const message = value as RpcMessage;
  const hasId = 'id' in message && message.id !== null && message.id !== undefined;
  if (hasId && !isId(message.id)) return { kind: 'invalid', code: RPC_ERRORS.invalidRequest, reason: 'invalid request: id must be a string or an integer of at most 2^53 - 1 in magnitude (the Codex app-server never answers a fractional or larger id)', id: null };
  if ('method' in message) {
    if (typeof message.method !== 'string' || message.method === '') {
      return { kind: 'invalid', code: RPC_ERRORS.invalidRequest, reason: 'invalid request: method must be a non-empty string', id: hasId ? message.id! : null };
    }
    return hasId ? { kind: 'request', message: message as RpcMessage & { id: RpcId; method: string } } : { kind: 'notification', message: message as RpcMessage & { method: string } };
  }
  if (hasId && ('result' in message || 'error' in message)) return { kind: 'response', message: message as RpcMessage & { id: RpcId } };
  return { kind: 'invalid', code: RPC_ERRORS.invalidRequest, reason: 'invalid request: neither a method nor a response', id: hasId ? message.id! : null };
}

/** An error response, serialised. */
export function errorFrame(id: RpcId | null, code: number, message: string): string {
  return JSON.stringify({ id, error: { code, message } });
}

/**
 * A map key for an id: `1` and `"1"` are different ids in JSON-RPC, so the key keeps the type.
 */
export function idKey(id: RpcId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}
