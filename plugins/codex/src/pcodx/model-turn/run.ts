import { shownLine, type LedgerHandle, type LedgerMessage, type LedgerSession } from '@cordon/plugin-api';
import type { RpcMessage } from '../serve/frames.js';
import { checkInjectItems, injectHistory } from '../app-server/inject.js';
import { TurnRecord } from '../serve/ingest.js';
import { readAppServerError } from './app-error.js';
import { StdioAppServer } from './stdio-rpc.js';
import { codexVersion, usageRecord, type TokenUsage } from './usage.js';

/** The client name sent at `initialize` (the Rust pcodx, SichangHe/partial_compact_codex). */
export const MODEL_TURN_CLIENT = 'pcodx_model_context_controller';

/** The developer instructions of the fresh thread (the Rust pcodx, SichangHe/partial_compact_codex, in our words). */
export const MODEL_TURN_INSTRUCTIONS =
  'The items injected before the current user message are the earlier state of this conversation, taken from the pcodx ledger. ' +
  'Each ends with an <aboveturn id="…"/> tag: msg… and cmp… ids are stable names of those entries, and cmp… entries are summaries that already replaced older messages (compaction has already happened). ' +
  'Answer the current user message.';

/** How long to wait for token usage after `turn/completed` (the Rust pcodx, SichangHe/partial_compact_codex). */
const USAGE_GRACE_MS = 5000;

/** Options of {@link runModelTurn}. */
export interface ModelTurnOptions {
  readonly ledger: LedgerHandle;
  readonly session: LedgerSession;
  readonly text: string;
  /** The thread's cwd (absolute). */
  readonly cwd: string;
  readonly codexBin: string;
  readonly timeoutMs: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Called with the exact injected items before the turn starts (for `--context-out`). */
  readonly onContext?: (items: unknown[]) => void;
}

/** What one model turn did. */
export interface ModelTurnResult {
  readonly answer: string;
  /** The user row and the assistant row, as stored. */
  readonly rows: readonly LedgerMessage[];
  /** The usage line to append (the Rust pcodx, SichangHe/partial_compact_codex fields). */
  readonly usage: Record<string, unknown>;
}

/**
 * One answering-model turn (the Rust pcodx, SichangHe/partial_compact_codex) over `codex app-server --listen
 * stdio://`: `initialize` (experimentalApi), a fresh ephemeral read-only thread with the
 * instructions above, `thread/inject_items` of the session's model items in batches of at most
 * 16 MiB of JSON (`injectHistory`, the serve's batching; none when empty),
 * `turn/start` with the text; then the agent messages, tool items and token usage (required;
 * waited for up to 5 s after `turn/completed`). The prompt and the answer (with any native tool
 * transcript, marked untrusted) are recorded in one transaction. Throws on a failed or
 * interrupted turn, a timeout, missing token usage or an app-server that dies; nothing is recorded
 * then. An app-server `error` notification that ends the turn (Codex will not retry; the model
 * server answered 401/403: no login, a wrong key; or it could not be reached at all: no network)
 * fails it as soon as it arrives, with the app-server's own message; the last such message is
 * part of every later failure's message.
 */
export async function runModelTurn(options: ModelTurnOptions): Promise<ModelTurnResult> {
  const { ledger, session } = options;
  const items = await ledger.modelItems(session.id);
  checkInjectItems(items);
  const compactions = await ledger.compactions(session.id);
  let threadId: string | undefined;
  let injectedJsonBytes = 0;
  let record: TurnRecord | undefined;
  let usage: { last: TokenUsage; window: number | null } | undefined;
  let finished: ((status: string) => void) | undefined;
  const completed = new Promise<string>((r) => (finished = r));
  let usageSeen: (() => void) | undefined;
  const usageArrived = new Promise<void>((r) => (usageSeen = r));
  // The app-server's own errors: the last one is kept for the message of a later failure; one
  // that ends the turn (no retry, a 401/403 no retry cures, no network) fails it at once.
  let lastError: string | undefined;
  let failNow: ((error: Error) => void) | undefined;
  const failed = new Promise<never>((_, reject) => (failNow = reject));
  failed.catch(() => undefined);
  const onNotification = (message: RpcMessage) => {
    const p = message.params ?? {};
    if (threadId === undefined || p.threadId !== threadId) return;
    if (message.method === 'error') {
      const error = readAppServerError(p);
      lastError = error.text;
      if (error.final) failNow?.(new Error(`codex app-server reported: ${error.text}`));
    } else if (message.method === 'item/completed') record?.addItem(p.item);
    else if (message.method === 'thread/tokenUsage/updated' && p.tokenUsage?.last) {
      usage = { last: p.tokenUsage.last, window: typeof p.tokenUsage.modelContextWindow === 'number' ? p.tokenUsage.modelContextWindow : null };
      usageSeen?.();
    } else if (message.method === 'turn/completed') {
      if (record) record.turnId ??= p.turn?.id;
      if (typeof p.turn?.error?.message === 'string') lastError = shownLine(p.turn.error.message);
      finished?.(String(p.turn?.status));
    }
  };
  const server = new StdioAppServer(options.codexBin, { cwd: options.cwd, env: options.env, onNotification });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the model turn did not finish within ${Math.round(options.timeoutMs / 1000)} s${lastError ? `; codex app-server last reported: ${lastError}` : ''}`)),
      options.timeoutMs,
    );
  });
  try {
    const work = async () => {
      const init = await server.request('initialize', { clientInfo: { name: MODEL_TURN_CLIENT, title: 'pcodx model-turn', version: '0' }, capabilities: { experimentalApi: true } });
      server.notify('initialized');
      const started = await server.request('thread/start', { approvalPolicy: 'never', cwd: options.cwd, developerInstructions: MODEL_TURN_INSTRUCTIONS, ephemeral: true, sandbox: 'read-only' });
      threadId = String(started?.thread?.id);
      // In the serve's batches (each within what the app-server's websocket reader takes): no one line holds the whole history.
      injectedJsonBytes = (await injectHistory((method, params) => server.request(method, params), threadId, items)).jsonBytes;
      options.onContext?.(items);
      record = new TurnRecord(threadId, options.text);
      const turn = await server.request('turn/start', { threadId, input: [{ type: 'text', text: options.text, text_elements: [] }] });
      record.turnId = turn?.turn?.id;
      const status = await completed;
      if (status !== 'completed') throw new Error(`the model turn ended with status ${status}${lastError ? `: ${lastError}` : ''}`);
      if (!usage) await Promise.race([usageArrived, new Promise((r) => setTimeout(r, USAGE_GRACE_MS))]);
      if (!usage) throw new Error('app-server reported no token usage for the turn');
      return init;
    };
    const working = work();
    // When the timeout wins, the abandoned work still rejects (the app-server is closed below); that must not surface as an unhandled rejection.
    working.catch(() => undefined);
    const init = await Promise.race([working, timeout, failed]);
    const rows = await ledger.record(session.id, record!.rows());
    const answerRow = rows[1]!;
    return {
      answer: answerRow.text,
      rows,
      usage: usageRecord({
        correlationId: session.usageCorrelationId,
        codexVersion: codexVersion(init?.userAgent),
        nActiveRanges: compactions.length,
        nSourceMessagesReplaced: compactions.reduce((sum, c) => sum + c.nMessagesReplaced, 0),
        nInjectedItems: items.length,
        injectedJsonBytes,
        usage: usage!.last,
        modelContextWindow: usage!.window,
      }),
    };
  } finally {
    clearTimeout(timer);
    await server.close();
  }
}
