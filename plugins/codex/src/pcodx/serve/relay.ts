import type { LedgerHandle } from '@cordon/plugin-api';
import WebSocket, { type RawData } from 'ws';
import { recordLiveContext, type FrameCapture } from './capture.js';
import { classify, errorFrame, MAX_FRAME_BYTES, RPC_ERRORS, type Classified, type RpcId, type RpcMessage } from './frames.js';
import { isReservedId, PendingTable, ProxyIds } from './ids.js';
import { TurnRecord, userTextOf } from './ingest.js';
import { SessionState, ThreadMap, TURN_SCOPED_METHODS, type MappedThread } from './threads.js';
import { forkSession, importResumedTurns, recordInstructions, sessionOfThread } from './sessions.js';
import type { LedgerRecordInput } from '@cordon/plugin-api';
import { answerToolCall, freshThreadParams, isPcodxToolCall, isPrimaryStart, optInExperimental, withPcodxInstructionsOnly, withPcodxTools } from './tools.js';
import { checkInjectItems, injectHistory } from '../app-server/inject.js';
import { APP_SERVER_WS_LIMITS } from '../app-server/limits.js';
import { byteLengthOf, sendFragmented } from './fragments.js';

/** One `key=value` log event of the serve (never conversation text). */
export type ServeLog = (event: string, fields?: Readonly<Record<string, string | number | boolean>>) => void;

/** What `--enable-pcodx-tools` adds: the ledger and the session the serve is bound to. */
export interface PcodxContext {
  readonly ledger: LedgerHandle;
  readonly session: SessionState;
  /** `PCODX_LIVE_CONTEXT_DIR`: where the injected items are recorded; without it only counts are logged. */
  readonly liveContextDir?: string;
}

/** Options of one client connection's relay. */
export interface RelayOptions {
  /** What the upstream connection dials (`ws+unix:PATH:/` or `ws://…`). */
  readonly upstreamUrl: string;
  /** Absent: a transparent relay. */
  readonly pcodx?: PcodxContext;
  readonly log: ServeLog;
  readonly capture?: FrameCapture;
  /**
   * `Authorization` sent to the upstream: the serve's own token for an app-server it started on
   * TCP. The client's header is never passed on (it holds the serve's token, not the upstream's).
   */
  readonly upstreamAuthorization?: string;
  /** Number of the connection, for the log. */
  readonly connection: number;
}

/** Per-request data of a pending client request (pcodx mode). */
interface ClientRequestData {
  /** A primary start/resume/fork: the params of a fresh thread for it. */
  freshParams?: Record<string, unknown>;
  /** A `turn/start` being ingested. */
  turn?: TurnRecord;
  /** The upstream thread a `turn/start` went to, and its mapped thread. */
  turnOn?: { readonly upstreamId: string; readonly thread: MappedThread };
  /**
   * The turn already running on that upstream thread when this `turn/start` was sent: Codex adds
   * the input of a `turn/start` during a running turn to that turn (its response names the running
   * turn), so the text is recorded as that turn's steer, not as a turn of its own.
   */
  joins?: TurnRecord;
  /** The client's params of a primary start/resume/fork. */
  params?: Record<string, any>;
  /** The client's own developer instructions of a primary `thread/start`. */
  instructions?: string;
  /** A `turn/steer` on a mapped thread: recorded with its turn once accepted. */
  steer?: { readonly upstreamId: string; readonly text: string };
}

/** Waits between ingestion attempts, in ms: three attempts in all (each may itself wait out the ledger's busy timeout). */
export const INGEST_RETRY_DELAYS_MS: readonly number[] = [500, 2000];

/** How long a relay whose client left keeps its upstream connection for the turns still running, in ms. */
const ORPHAN_TURN_LIMIT_MS = 30 * 60 * 1000;

/**
 * The relay between one client websocket and its own upstream app-server connection.
 *
 * Transparent (no {@link PcodxContext}): frames pass unchanged, in order; the relay only reads
 * ids to know which requests are pending, so an upstream that dies becomes one JSON-RPC error per
 * pending request instead of silence. Malformed client frames are answered with -32700/-32600 and
 * never reach the upstream; malformed upstream frames holding `"id"` are logged and dropped
 * (upstream frames without it pass unparsed).
 *
 * With pcodx (docs/pcodx.md point 2): `initialize` opts into `experimentalApi`;
 * primary `thread/start` gets the pcodx tools and instructions, resume/fork the instructions;
 * pcodx `item/tool/call`s are answered from the ledger and never forwarded; each completed
 * turn of a primary thread is ingested (one transaction); after a compaction the next
 * `turn/start` runs on a fresh ephemeral upstream thread seeded with `thread/inject_items`.
 * pcodx-mode frames are handled one at a time in arrival order (a chain), so a `turn/start`
 * never overtakes the ingestion of the turn before it.
 */
export class Relay {
  readonly #client: WebSocket;
  readonly #upstream: WebSocket;
  readonly #options: RelayOptions;
  readonly #clientPending = new PendingTable<ClientRequestData>();
  readonly #serverPending = new PendingTable<undefined>();
  readonly #internal = new Map<string, { resolve: (result: any) => void; reject: (error: Error) => void }>();
  readonly #ids = new ProxyIds();
  readonly #threads?: ThreadMap;
  /** Upstream thread id → the turn running on it and the ledger session it goes to. */
  readonly #turns = new Map<string, { readonly record: TurnRecord; readonly thread: MappedThread }>();
  /** Set when the client left while turns were still running: the upstream stays until they are ingested. */
  #clientGone = false;
  readonly #early: Array<{ data: RawData | string; binary: boolean }> = [];
  #chain: Promise<void> = Promise.resolve();
  #upstreamGone = false;
  /** Resolves once both sockets are closed. */
  readonly closed: Promise<void>;

  constructor(client: WebSocket, options: RelayOptions) {
    this.#client = client;
    this.#options = options;
    if (options.pcodx) this.#threads = new ThreadMap();
    this.#upstream = new WebSocket(options.upstreamUrl, { perMessageDeflate: false, maxPayload: MAX_FRAME_BYTES, headers: options.upstreamAuthorization ? { authorization: options.upstreamAuthorization } : {} });
    const upstreamClosed = new Promise<void>((r) => this.#upstream.once('close', () => r()));
    const clientClosed = new Promise<void>((r) => client.once('close', () => r()));
    this.closed = Promise.all([upstreamClosed, clientClosed]).then(() => undefined);

    client.on('message', (data, binary) => this.#fromClient(data, binary));
    client.on('close', () => this.#clientClosed());
    client.on('error', (error) => options.log('client_error', { connection: options.connection, message: error.message }));
    this.#upstream.on('open', () => {
      for (const frame of this.#early.splice(0)) sendFragmented(this.#upstream, frame.data, frame.binary, APP_SERVER_WS_LIMITS.frameBytes);
    });
    this.#upstream.on('message', (data, binary) => this.#fromUpstream(data, binary));
    this.#upstream.on('error', (error) => options.log('upstream_error', { connection: options.connection, message: error.message }));
    this.#upstream.on('close', (code) => this.#upstreamClosed(code));
  }

  // ---- client → upstream ------------------------------------------------------------------

  #fromClient(data: RawData, binary: boolean): void {
    const size = byteLengthOf(data);
    if (size > APP_SERVER_WS_LIMITS.messageBytes) return this.#refuseLarge(data, binary, size);
    if (binary) return this.#refuseBinary(data);
    const text = data.toString();
    this.#options.capture?.frame('c2p', text);
    const frame = classify(text);
    switch (frame.kind) {
      case 'invalid':
        this.#options.log('client_frame_refused', { connection: this.#options.connection, code: frame.code, reason: frame.reason });
        return this.#sendClient(errorFrame(frame.id, frame.code, frame.reason), false);
      case 'response':
        if (!this.#serverPending.take(frame.message.id)) {
          this.#options.log('client_response_dropped', { connection: this.#options.connection, reason: 'no pending server request has this id' });
          return;
        }
        return this.#sendUp(data, false);
      case 'notification':
        if (!this.#options.pcodx) return this.#sendUp(data, false);
        return this.#enqueue(async () => this.#sendUp(data, false));
      case 'request': {
        const { id, method } = frame.message;
        if (isReservedId(id)) return this.#refuse(id, `invalid request: ids beginning with "pcodx:" are reserved for the proxy`);
        if (this.#upstreamGone) return this.#sendClient(errorFrame(id, RPC_ERRORS.upstreamGone, 'the upstream app-server connection is closed'), false);
        if (!this.#clientPending.add(id, method, {})) return this.#refuse(id, `invalid request: id ${JSON.stringify(id)} is already pending`);
        if (!this.#options.pcodx) return this.#sendUp(data, false);
        return this.#enqueue(() => this.#pcodxRequest(frame.message, data).catch((error: unknown) => this.#requestFailed(id, error)));
      }
    }
  }

  /**
   * A client message the app-server could not read (above {@link APP_SERVER_WS_LIMITS}.messageBytes): it
   * would drop the connection and every request pending on it. A request gets an error instead;
   * anything else is dropped. Either way it is logged and the connection stays.
   */
  #refuseLarge(data: RawData, binary: boolean, size: number): void {
    const reason = `request too large: ${size} bytes; the Codex app-server reads messages of at most ${APP_SERVER_WS_LIMITS.messageBytes} bytes (64 MiB)`;
    const frame = binary ? undefined : classify(data.toString());
    if (frame?.kind === 'request') return this.#refuse(frame.message.id, reason);
    this.#options.log('client_frame_refused', { connection: this.#options.connection, code: RPC_ERRORS.invalidRequest, reason: `message too large: ${size} bytes` });
  }

  /**
   * A binary frame: the app-server reads JSON-RPC from text frames only and ignores a binary one
   * without a word (Codex 0.171, measured), so a request sent that way would wait forever. It gets
   * -32600 instead (with its id when the bytes hold a request), and nothing is relayed.
   */
  #refuseBinary(data: RawData): void {
    const reason = 'invalid request: a binary frame; the Codex app-server reads JSON-RPC messages from text frames only';
    const frame = classify(data.toString());
    if (frame.kind === 'request') return this.#refuse(frame.message.id, reason);
    this.#options.log('client_frame_refused', { connection: this.#options.connection, code: RPC_ERRORS.invalidRequest, reason });
    this.#sendClient(errorFrame(null, RPC_ERRORS.invalidRequest, reason), false);
  }

  /**
   * A client request the serve could not handle (it throws before the request was relayed): the
   * request is answered, never left pending, and nothing of it reaches the app-server. A value
   * nested deeper than `JSON.stringify` can write again (`RangeError`; `JSON.parse` took it) is the
   * client's -32600; anything else the serve's own -32603.
   */
  #requestFailed(id: RpcId, error: unknown): void {
    const data = this.#clientPending.take(id)?.data;
    // A turn/start registered as running before it failed never runs: a client leaving waits for nothing.
    if (data?.turn && data.turnOn && this.#turns.get(data.turnOn.upstreamId)?.record === data.turn) {
      this.#turns.delete(data.turnOn.upstreamId);
      this.#afterTurn();
    }
    if (error instanceof RangeError) return this.#refuse(id, 'invalid request: nested too deeply for pcodx to rewrite');
    const message = `pcodx could not handle this request: ${error instanceof Error ? error.message : String(error)}`;
    this.#options.log('relay_error', { connection: this.#options.connection, message });
    this.#sendClient(errorFrame(id, RPC_ERRORS.internal, message), false);
  }

  #refuse(id: RpcId, reason: string): void {
    this.#options.log('client_frame_refused', { connection: this.#options.connection, code: RPC_ERRORS.invalidRequest, reason });
    this.#sendClient(errorFrame(id, RPC_ERRORS.invalidRequest, reason), false);
  }

  async #pcodxRequest(message: RpcMessage & { id: RpcId; method: string }, raw: RawData): Promise<void> {
    const pending = this.#clientPending;
    // The entry was added in #fromClient; its data object is filled in here.
    const data = pending.get(message.id)?.data ?? {};
    let out: RpcMessage | undefined;
    const { method } = message;
    if (method === 'initialize') {
      out = { ...message, params: optInExperimental(message.params) };
    } else if (method === 'thread/start' && isPrimaryStart(message.params)) {
      out = { ...message, params: withPcodxTools(message.params) };
      data.freshParams = freshThreadParams(method, out.params);
      data.params = message.params ?? {};
      const own = message.params?.developerInstructions;
      if (typeof own === 'string' && own.trim() !== '') data.instructions = own;
    } else if ((method === 'thread/resume' || method === 'thread/fork') && isPrimaryStart(message.params)) {
      out = { ...message, params: withPcodxInstructionsOnly(message.params) };
      data.freshParams = freshThreadParams(method, out.params);
      data.params = message.params ?? {};
    } else if (TURN_SCOPED_METHODS.has(method)) {
      const thread = this.#threads!.get(message.params?.threadId);
      if (thread) {
        if (method === 'turn/steer') data.steer = { upstreamId: thread.upstreamId, text: userTextOf(message.params?.input) };
        if (method === 'turn/start') {
          const { ledger } = this.#options.pcodx!;
          // Turns whose ingestion failed go in first, so the ledger keeps the conversation's order.
          await this.#flushUnsaved(thread.sessionId);
          // The ledger is the truth: any process may have compacted, uncompacted or recorded since.
          let stale = true;
          try {
            stale = this.#threads!.isStale(thread, await ledger.visibleIds(thread.sessionId));
          } catch (error) {
            this.#options.log('ledger_read_failed', { connection: this.#options.connection, message: (error as Error).message });
            stale = false;
          }
          if (stale) {
            try {
              await this.#freshThread(thread);
            } catch (error) {
              pending.take(message.id);
              this.#options.log('fresh_thread_failed', { connection: this.#options.connection, message: (error as Error).message });
              return this.#sendClient(errorFrame(message.id, RPC_ERRORS.internal, `pcodx could not start the compacted context: ${(error as Error).message}`), false);
            }
          }
          data.turn = new TurnRecord(thread.clientId, userTextOf(message.params?.input));
          data.turnOn = { upstreamId: thread.upstreamId, thread };
          const running = this.#turns.get(thread.upstreamId);
          // Never replace a running turn's record: the response says whether this input joined it.
          if (running) data.joins = running.record;
          else this.#turns.set(thread.upstreamId, { record: data.turn, thread });
        }
        if (thread.upstreamId !== thread.clientId) out = { ...message, params: { ...message.params, threadId: thread.upstreamId } };
      }
    }
    this.#sendUp(out ? JSON.stringify(out) : raw, false);
  }

  /** Starts a fresh ephemeral upstream thread for `thread`, seeded with the ledger's model items. */
  async #freshThread(thread: MappedThread): Promise<void> {
    const { ledger, liveContextDir } = this.#options.pcodx!;
    // Ids first: a write landing between the two reads makes the next turn reseed again (never miss it).
    const ids = await ledger.visibleIds(thread.sessionId);
    const items = await ledger.modelItems(thread.sessionId);
    checkInjectItems(items);
    const started = await this.#call('thread/start', thread.freshParams);
    const upstreamId = started?.thread?.id;
    if (typeof upstreamId !== 'string') throw new Error('thread/start returned no thread id');
    // In batches, each within one frame the app-server reads (an item larger than that goes alone, in fragments).
    const injected = await injectHistory((method, params) => this.#call(method, params), upstreamId, items);
    this.#threads!.moveTo(thread, upstreamId, ids);
    const fields: Record<string, string | number> = { connection: this.#options.connection, injected_items: items.length, injected_json_bytes: injected.jsonBytes, inject_calls: injected.calls };
    if (liveContextDir) fields.live_context_file = recordLiveContext(liveContextDir, { sessionId: thread.sessionId, clientThreadId: thread.clientId, upstreamThreadId: upstreamId, items });
    this.#options.log('fresh_thread', fields);
  }

  /** A proxy request upstream (namespace 3); resolves with its result, rejects with its error. */
  #call(method: string, params: unknown): Promise<any> {
    if (this.#upstreamGone) return Promise.reject(new Error('the upstream app-server connection is closed'));
    const id = this.#ids.next();
    const text = JSON.stringify({ id, method, params });
    const size = Buffer.byteLength(text);
    if (size > APP_SERVER_WS_LIMITS.messageBytes) return Promise.reject(new Error(`${method} would be ${size} bytes, above the ${APP_SERVER_WS_LIMITS.messageBytes} bytes (64 MiB) the Codex app-server reads in one message`));
    return new Promise((resolve, reject) => {
      this.#internal.set(id, { resolve, reject });
      this.#sendUp(text, false);
    });
  }

  // ---- upstream → client ------------------------------------------------------------------

  #fromUpstream(data: RawData, binary: boolean): void {
    if (binary) return this.#sendClient(data, true);
    // Transparent mode reads upstream frames only to track request ids; a frame without the bytes
    // `"id"` can be neither a response nor a request (streaming deltas are most of the traffic),
    // so it passes unparsed.
    if (!this.#options.pcodx && Buffer.isBuffer(data) && data.indexOf('"id"') === -1) {
      this.#options.capture?.frame('s2p', data.toString());
      return this.#sendClient(data, false);
    }
    const text = data.toString();
    this.#options.capture?.frame('s2p', text);
    const frame = classify(text);
    if (frame.kind === 'invalid') {
      this.#options.log('upstream_frame_dropped', { connection: this.#options.connection, reason: frame.reason });
      return;
    }
    if (frame.kind === 'response' && isReservedId(frame.message.id)) {
      const waiter = this.#internal.get(frame.message.id as string);
      this.#internal.delete(frame.message.id as string);
      if (frame.message.error) waiter?.reject(new Error(`${frame.message.error.message} (code ${frame.message.error.code})`));
      else waiter?.resolve(frame.message.result);
      return;
    }
    if (!this.#options.pcodx) {
      if (frame.kind === 'response') this.#clientPending.take(frame.message.id);
      else if (frame.kind === 'request') this.#serverPending.add(frame.message.id, frame.message.method, undefined);
      return this.#sendClient(data, false);
    }
    this.#enqueue(() => this.#pcodxUpstream(frame, text, data));
  }

  async #pcodxUpstream(frame: Exclude<Classified, { kind: 'invalid' }>, text: string, data: RawData): Promise<void> {
    const threads = this.#threads!;
    const message = frame.message;
    if (frame.kind === 'response') {
      const entry = this.#clientPending.take(frame.message.id);
      const threadId = message.result?.thread?.id;
      if (entry?.data?.freshParams && typeof threadId === 'string') {
        try {
          await this.#mapThread(entry.method, entry.data, threadId, message.result.thread);
        } catch (error) {
          this.#options.log('thread_map_failed', { connection: this.#options.connection, method: entry.method, message: (error as Error).message });
        }
      }
      if (entry?.data?.turn && entry.data.turnOn) this.#turnStarted(entry.data.turn, entry.data.turnOn, entry.data.joins, message);
      if (entry?.data?.steer && !message.error) this.#turns.get(entry.data.steer.upstreamId)?.record.addSteer(entry.data.steer.text);
    } else if (frame.kind === 'request') {
      if (isPcodxToolCall(frame.message.method, message.params) && threads.byUpstream(message.params.threadId)) {
        return this.#answerTool(frame.message.id, message.params);
      }
      if (this.#clientGone) {
        // Nobody can answer it: an error lets the turn go on (or end) instead of waiting forever.
        this.#sendUp(errorFrame(frame.message.id, RPC_ERRORS.upstreamGone, 'the client that started this turn disconnected'), false);
        return;
      }
      this.#serverPending.add(frame.message.id, frame.message.method, undefined);
    } else {
      const method = frame.message.method;
      const params = message.params ?? {};
      if (method === 'thread/started' && threads.isFresh(params.thread?.id)) return;
      const running = this.#turns.get(params.threadId);
      if (running) {
        const { record } = running;
        if (method === 'turn/started') record.turnId ??= params.turn?.id;
        if (method === 'item/completed' && (record.turnId === undefined || record.turnId === params.turnId)) record.addItem(params.item);
        if (method === 'turn/completed' && (record.turnId === undefined || record.turnId === params.turn?.id)) {
          record.turnId ??= params.turn?.id;
          this.#turns.delete(params.threadId);
          const failure = await this.#ingest(running.record, running.thread, String(params.turn?.status));
          if (failure !== undefined) {
            // Not a silent normal completion: Codex's own error notification, then the turn marked failed.
            const error = { message: failure, codexErrorInfo: null, additionalDetails: null };
            const clientThreadId = record.clientThreadId;
            this.#sendClient(JSON.stringify({ method: 'error', params: { error, willRetry: false, threadId: clientThreadId, turnId: record.turnId } }), false);
            const failed = threads.toClient({ ...message, params: { ...params, turn: { ...params.turn, status: 'failed', error } } });
            this.#sendClient(JSON.stringify(failed), false);
            return this.#afterTurn();
          }
          this.#sendClient(threads.mentionsFresh(text) ? JSON.stringify(threads.toClient(message)) : data, false);
          return this.#afterTurn();
        }
      }
    }
    this.#sendClient(threads.mentionsFresh(text) ? JSON.stringify(threads.toClient(message)) : data, false);
  }

  /**
   * The app-server's response to a client `turn/start`. Refused: the turn never runs, so its record
   * goes (a client leaving then waits for no phantom turn). Accepted with the id of the turn already
   * running on that thread (`joins`): Codex added the input to that turn, so it becomes a user
   * message of it, as a steer is. Accepted as a new turn: its record runs from here.
   */
  #turnStarted(record: TurnRecord, on: { readonly upstreamId: string; readonly thread: MappedThread }, joins: TurnRecord | undefined, message: RpcMessage): void {
    const turnId = message.result?.turn?.id;
    if (message.error !== undefined || typeof turnId !== 'string') {
      if (this.#turns.get(on.upstreamId)?.record === record) {
        this.#turns.delete(on.upstreamId);
        this.#afterTurn();
      }
      return;
    }
    const running = this.#turns.get(on.upstreamId);
    if (joins && joins.turnId === turnId) {
      if (running?.record === joins) {
        joins.addSteer(record.userText);
        this.#options.log('turn_input_joined', { connection: this.#options.connection });
      } else {
        // The joined turn was ingested before this response came: never a record for a turn that ended.
        this.#options.log('turn_input_unrecorded', { connection: this.#options.connection, reason: 'the turn it joined had already ended' });
      }
      return;
    }
    record.turnId ??= turnId;
    if (running?.record !== record) this.#turns.set(on.upstreamId, { record, thread: on.thread });
  }

  async #answerTool(id: RpcId, params: any): Promise<void> {
    const { ledger } = this.#options.pcodx!;
    const thread = this.#threads!.byUpstream(params.threadId)!;
    let result;
    try {
      // The thread's next turn/start sees the compaction in the ledger like any other.
      const answer = await answerToolCall(ledger, thread.sessionId, params);
      result = answer.response;
      if (answer.compacted) this.#turns.get(params.threadId)?.record.addReceipt(answer.compacted.receipt);
      this.#options.log('pcodx_tool', { connection: this.#options.connection, tool: String(params.tool), success: result.success, compacted: answer.compacted !== undefined });
    } catch (error) {
      this.#options.log('pcodx_tool_failed', { connection: this.#options.connection, tool: String(params.tool), message: (error as Error).message });
      result = { contentItems: [{ type: 'inputText', text: JSON.stringify({ error: `pcodx could not run ${String(params.tool)}: ${(error as Error).message}` }) }], success: false };
    }
    this.#sendUp(JSON.stringify({ id, result }), false);
  }

  /**
   * Maps a primary thread the client started, resumed or forked (the upstream's response is in):
   * - start: the serve's session; in step with the ledger only when the session is empty. The
   *   client's own developer instructions are stored with the session (fresh threads get them from
   *   the ledger, so they leave the fresh thread's params).
   * - resume: the thread's fork session when it has one, else the serve's; a session still empty
   *   takes the resumed thread's completed turns (a conversation started without pcodx). Never in
   *   step: dynamic tools exist only on `thread/start`, so its first turn runs on a fresh thread
   *   that has the pcodx tools.
   * - fork: a new session of its own holding the source's history at the fork; never in step.
   */
  async #mapThread(method: string, data: ClientRequestData, threadId: string, thread: unknown): Promise<void> {
    const { ledger, session } = this.#options.pcodx!;
    const threads = this.#threads!;
    const freshParams = data.freshParams!;
    const cwd = typeof data.params?.cwd === 'string' ? data.params.cwd : undefined;
    let sessionId = session.sessionId;
    let expected: readonly string[] | undefined;
    let imported = 0;
    if (method === 'thread/start') {
      const before = await ledger.visibleIds(sessionId);
      expected = before.length === 0 ? [] : undefined;
      if (data.instructions !== undefined) {
        const added = await recordInstructions(ledger, sessionId, threadId, data.instructions);
        if (expected !== undefined) expected = [...expected, ...added];
        freshParams.developerInstructions = withPcodxInstructionsOnly({}).developerInstructions;
      }
    } else if (method === 'thread/resume') {
      sessionId = await sessionOfThread(ledger, session.sessionId, threadId);
      const readTurns = async () => (await this.#call('thread/read', { threadId, includeTurns: true }))?.thread;
      imported = (await importResumedTurns(ledger, sessionId, threadId, thread, readTurns)).length;
    } else {
      const source = data.params?.threadId;
      const from = threads.get(source)?.sessionId ?? (typeof source === 'string' ? await sessionOfThread(ledger, session.sessionId, source) : session.sessionId);
      sessionId = await forkSession(ledger, from, threadId, cwd);
    }
    threads.add(threadId, sessionId, freshParams, expected);
    const fields: Record<string, string | number | boolean> = { connection: this.#options.connection, method, in_sync: expected !== undefined, own_session: sessionId !== session.sessionId };
    if (imported) fields.imported_messages = imported;
    this.#options.log('thread_mapped', fields);
  }

  /**
   * Records a finished turn (completed turns only) after any turns of its session still unsaved,
   * trying {@link INGEST_RETRY_DELAYS_MS}.length + 1 times. On failure the rows are kept (in order)
   * to be written before the session's next turn, and the reason is returned for the client.
   */
  async #ingest(record: TurnRecord, thread: MappedThread, status: string): Promise<string | undefined> {
    const sessionId = thread.sessionId;
    if (status !== 'completed') {
      this.#options.log('turn_not_ingested', { connection: this.#options.connection, status });
      return undefined;
    }
    const rows = record.rows();
    let last: Error | undefined;
    for (let attempt = 0; attempt <= INGEST_RETRY_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, INGEST_RETRY_DELAYS_MS[attempt - 1]));
      try {
        if (!(await this.#flushUnsaved(sessionId))) throw last ?? new Error('earlier turns could not be recorded');
        const stored = await this.#options.pcodx!.ledger.record(sessionId, rows);
        // The upstream history now holds these rows too; a write by anyone else in between still shows.
        if (thread.expected !== undefined) thread.expected = [...thread.expected, ...stored.map((r) => r.id)];
        this.#options.log('turn_ingested', { connection: this.#options.connection, messages: stored.map((r) => r.id).join(','), attempts: attempt + 1 });
        return undefined;
      } catch (error) {
        last = error as Error;
        this.#options.log('ingest_failed', { connection: this.#options.connection, attempt: attempt + 1, message: last.message });
      }
    }
    const unsaved = this.#options.pcodx!.session.unsaved;
    unsaved.set(sessionId, [...(unsaved.get(sessionId) ?? []), rows]);
    this.#options.log('turn_kept_unsaved', { connection: this.#options.connection, unsaved_turns: unsaved.get(sessionId)!.length });
    return `pcodx could not record this turn in the ledger (${last?.message ?? 'unknown error'}); it is kept and will be recorded before the next turn of this session`;
  }

  /** Records the session's unsaved turns, oldest first; false when one still fails (it and later ones are kept). */
  async #flushUnsaved(sessionId: string): Promise<boolean> {
    const unsaved = this.#options.pcodx!.session.unsaved;
    const queue: Array<readonly LedgerRecordInput[]> = unsaved.get(sessionId) ?? [];
    while (queue.length) {
      try {
        const stored = await this.#options.pcodx!.ledger.record(sessionId, queue[0]!);
        queue.shift();
        this.#options.log('unsaved_turn_ingested', { connection: this.#options.connection, messages: stored.map((r) => r.id).join(','), unsaved_turns: queue.length });
      } catch (error) {
        this.#options.log('ingest_failed', { connection: this.#options.connection, unsaved_turns: queue.length, message: (error as Error).message });
        return false;
      }
    }
    unsaved.delete(sessionId);
    return true;
  }

  /** Once the client has left, the upstream connection goes when its last running turn is ingested. */
  #afterTurn(): void {
    if (this.#clientGone && this.#turns.size === 0) {
      this.#options.log('orphan_turns_done', { connection: this.#options.connection });
      this.#upstream.close(1000);
    }
  }

  // ---- plumbing ---------------------------------------------------------------------------

  #enqueue(work: () => Promise<void>): void {
    this.#chain = this.#chain.then(work).catch((error: Error) => this.#options.log('relay_error', { connection: this.#options.connection, message: error.message }));
  }

  #sendUp(data: RawData | string, binary: boolean): void {
    if (!binary && this.#options.capture) this.#options.capture.frame('p2s', data.toString());
    if (this.#upstream.readyState === WebSocket.OPEN) sendFragmented(this.#upstream, data, binary, APP_SERVER_WS_LIMITS.frameBytes);
    else if (this.#upstream.readyState === WebSocket.CONNECTING) this.#early.push({ data, binary });
  }

  #sendClient(data: RawData | string, binary: boolean): void {
    if (!binary && this.#options.capture) this.#options.capture.frame('p2c', data.toString());
    if (this.#client.readyState === WebSocket.OPEN) this.#client.send(data, { binary });
  }

  #clientClosed(): void {
    const inFlight = this.#turns.size;
    this.#options.log('client_closed', { connection: this.#options.connection, turns_in_flight: inFlight });
    if (inFlight > 0 && this.#options.pcodx && this.#upstream.readyState === WebSocket.OPEN) {
      // The app-server finishes those turns; they are ingested as if the client were there, then
      // the upstream connection goes (or after ORPHAN_TURN_LIMIT_MS whatever happens).
      this.#clientGone = true;
      setTimeout(() => this.#upstream.close(1000), ORPHAN_TURN_LIMIT_MS).unref();
      return;
    }
    this.#turns.clear();
    if (this.#upstream.readyState === WebSocket.CONNECTING) this.#upstream.terminate();
    else this.#upstream.close(1000);
  }

  #upstreamClosed(code: number): void {
    this.#upstreamGone = true;
    const pending = this.#clientPending.drain();
    this.#options.log('upstream_closed', { connection: this.#options.connection, code, pending_requests: pending.length });
    const reason = `the upstream app-server closed the connection (code ${code})`;
    for (const waiter of this.#internal.values()) waiter.reject(new Error(reason));
    this.#internal.clear();
    // Queued pcodx work still drains; answer what the client waits for once it has.
    this.#enqueue(async () => {
      for (const entry of [...pending, ...this.#clientPending.drain()]) this.#sendClient(errorFrame(entry.id, RPC_ERRORS.upstreamGone, reason), false);
      if (this.#client.readyState === WebSocket.OPEN) this.#client.close(1011, 'upstream app-server closed');
    });
  }
}
