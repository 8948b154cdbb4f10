import { WebSocketServer, WebSocket } from 'ws';

/** A message as the fake received it, with the connection it came on (1-based). */
export interface Received {
  readonly connection: number;
  readonly message: any;
}

/**
 * A scripted stand-in for `codex app-server --listen ws://` (the Codex app-server protocol, docs/references.md#codex-app-server-protocol): it
 * answers `initialize`, `thread/start|resume|fork`, `thread/inject_items`, `thread/read` and
 * `turn/start`, and plays a turn from the prompt text:
 *
 * - `TOOL <name> <json>`: sends `item/tool/call` (server request ids count from 0 per connection)
 *   and completes once the client answers;
 * - `APPROVE`: sends `item/commandExecution/requestApproval` and puts the decision in the answer;
 * - `HANG`: never completes; `CRASH`: drops the connection after the `turn/start` response;
 * - `HOLD`: completes once {@link release} is called (accepting `turn/steer` meanwhile: the
 *   answer lists the steers);
 * - anything else: `item/completed` agentMessage `answer: <text>` and `turn/completed`.
 *
 * Unknown methods get -32601. Every message received is kept in {@link received}.
 */
export class FakeAppServer {
  readonly received: Received[] = [];
  /** Connections closed by the peer, by number. */
  readonly closedConnections: number[] = [];
  /** The headers of each accepted upgrade, in order. */
  readonly upgradeHeaders: Array<Record<string, string | string[] | undefined>> = [];
  #server!: WebSocketServer;
  #connections = 0;
  #threads = 0;
  #turns = 0;
  #held: Array<() => void> = [];
  /** What `thread/resume` answers with as its `thread` (besides the id), e.g. `turns` or a huge history. */
  resumeThread: Record<string, unknown> = {};

  /** Lets every `HOLD` turn complete. */
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }

  /** Number of `HOLD` turns waiting. */
  get heldTurns(): number {
    return this.#held.length;
  }

  static async start(): Promise<FakeAppServer> {
    const fake = new FakeAppServer();
    fake.#server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => fake.#server.once('listening', () => r()));
    fake.#server.on('connection', (socket, request) => {
      fake.upgradeHeaders.push(request.headers);
      fake.#serve(socket);
    });
    return fake;
  }

  get url(): string {
    const address = this.#server.address() as { port: number };
    return `ws://127.0.0.1:${address.port}`;
  }

  /** Messages received with this method, in order. */
  calls(method: string): any[] {
    return this.received.filter((r) => r.message.method === method).map((r) => r.message);
  }

  async close(): Promise<void> {
    for (const client of this.#server.clients) client.terminate();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  #serve(socket: WebSocket): void {
    const connection = ++this.#connections;
    let serverIds = 0;
    const waiting = new Map<number, (reply: any) => void>();
    /** Threads with a HOLD turn running → the steers received. */
    const steers = new Map<string, string[]>();
    const send = (m: unknown) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(m));
    const ask = (method: string, params: unknown) =>
      new Promise<any>((resolve) => {
        const id = serverIds++;
        waiting.set(id, resolve);
        send({ id, method, params });
      });
    socket.on('close', () => this.closedConnections.push(connection));
    socket.on('message', async (data) => {
      const message = JSON.parse(data.toString());
      this.received.push({ connection, message });
      if (message.method === undefined) {
        waiting.get(message.id)?.(message);
        waiting.delete(message.id);
        return;
      }
      if (message.id === undefined) return;
      const reply = (result: unknown) => send({ id: message.id, result });
      const p = message.params ?? {};
      switch (message.method) {
        case 'initialize':
          return reply({ userAgent: `${p.clientInfo?.name ?? 'client'}/0.171.0 (fake)`, platformFamily: 'unix' });
        case 'thread/start':
        case 'thread/fork': {
          const id = `thread-${String(++this.#threads).padStart(4, '0')}-fake`;
          const thread = { id, ephemeral: p.ephemeral === true, status: { type: 'idle' } };
          reply({ thread });
          return send({ method: 'thread/started', params: { thread } });
        }
        case 'thread/resume':
          // excludeTurns (as `codex exec` resumes): the turns only come from thread/read.
          return reply({ thread: { ...this.resumeThread, ...(p.excludeTurns ? { turns: [] } : {}), id: p.threadId, ephemeral: false } });
        case 'thread/inject_items':
        case 'thread/unsubscribe':
          return reply({});
        case 'thread/read':
          return reply({ thread: { ...(p.includeTurns ? this.resumeThread : {}), id: p.threadId } });
        case 'turn/steer': {
          steers.get(p.threadId)?.push((p.input ?? []).map((i: any) => i.text ?? '').join('\n'));
          return steers.has(p.threadId) ? reply({ turnId: p.expectedTurnId }) : send({ id: message.id, error: { code: -32600, message: 'no active turn to steer' } });
        }
        case 'turn/start': {
          const threadId = p.threadId;
          const turnId = `turn-${++this.#turns}`;
          const text = (p.input ?? []).map((i: any) => i.text ?? '').join('\n');
          reply({ turn: { id: turnId, status: 'inProgress', items: [] } });
          if (text.includes('CRASH')) return socket.terminate();
          if (text.includes('HANG')) return;
          if (text.includes('HOLD')) {
            steers.set(threadId, []);
            await new Promise<void>((r) => this.#held.push(r));
          }
          const steered = steers.get(threadId) ?? [];
          steers.delete(threadId);
          send({ method: 'turn/started', params: { threadId, turn: { id: turnId, status: 'inProgress' } } });
          send({ method: 'item/completed', params: { threadId, turnId, item: { type: 'userMessage', id: 'u', content: [] } } });
          let answer = `answer: ${text}${steered.length ? ` steered: ${steered.join(' | ')}` : ''}`;
          const tool = /TOOL (\S+) (\{.*\})/s.exec(text);
          if (tool) {
            const result = await ask('item/tool/call', { threadId, turnId, callId: 'call-1', namespace: null, tool: tool[1], arguments: JSON.parse(tool[2]!) });
            send({ method: 'item/completed', params: { threadId, turnId, item: { type: 'dynamicToolCall', id: 'call-1', namespace: null, tool: tool[1], status: 'completed', success: result.result?.success } } });
            answer = `tool said: ${result.result?.contentItems?.[0]?.text ?? JSON.stringify(result.error)}`;
          }
          if (text.includes('APPROVE')) {
            const decision = await ask('item/commandExecution/requestApproval', { threadId, turnId, itemId: 'cmd-1', command: 'ls' });
            send({ method: 'item/completed', params: { threadId, turnId, item: { type: 'commandExecution', id: 'cmd-1', command: 'ls', aggregatedOutput: 'a.txt', exitCode: 0 } } });
            answer = `decision: ${decision.result?.decision}`;
          }
          send({ method: 'item/completed', params: { threadId, turnId, item: { type: 'agentMessage', id: 'a', text: answer } } });
          return send({ method: 'turn/completed', params: { threadId, turn: { id: turnId, status: 'completed' } } });
        }
        default:
          return send({ id: message.id, error: { code: -32601, message: `unknown method ${message.method}` } });
      }
    });
  }
}

/** A test client of the proxy: sends frames, collects everything it receives. */
export class TestClient {
  readonly frames: any[] = [];
  readonly raw: string[] = [];
  closeCode: number | undefined;
  readonly #socket: WebSocket;
  readonly #waiters: Array<{ pred: (m: any) => boolean; resolve: (m: any) => void }> = [];
  readonly closed: Promise<number>;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    this.closed = new Promise((r) => socket.once('close', (code) => r((this.closeCode = code))));
    socket.on('message', (data) => {
      const text = data.toString();
      this.raw.push(text);
      const m = JSON.parse(text);
      this.frames.push(m);
      for (let i = this.#waiters.length - 1; i >= 0; i--) {
        if (this.#waiters[i]!.pred(m)) this.#waiters.splice(i, 1)[0]!.resolve(m);
      }
    });
  }

  static async connect(url: string, headers: Record<string, string> = {}): Promise<TestClient> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new TestClient(socket);
  }

  send(message: unknown): void {
    this.#socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first frame (already received or future) matching `pred`. */
  next(pred: (m: any) => boolean): Promise<any> {
    const seen = this.frames.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ pred, resolve }));
  }

  /** Sends a request and waits for its response. */
  request(id: string | number, method: string, params: unknown = {}): Promise<any> {
    this.send({ id, method, params });
    return this.next((m) => m.id === id && m.method === undefined);
  }

  close(): void {
    this.#socket.close();
  }
}
