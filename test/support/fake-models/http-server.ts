import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ScriptOptions } from './script.js';

/** One request a fake server received, with its JSON body parsed (`undefined` if not JSON). */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: any;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

/** What a protocol handler answers. `sse` frames are written as given and the stream is closed. */
export type Answer =
  | { readonly status: number; readonly json: unknown; readonly headers?: Record<string, string> }
  | { readonly status: 200; readonly sse: readonly string[]; readonly headers?: Record<string, string> };

/** A protocol: turns a recorded request into an answer (a promise holds the answer back until it settles). */
export type Handler = (request: RecordedRequest) => Answer | Promise<Answer>;

/** Default largest request body read, in bytes (agents send whole transcripts; 32 MiB is plenty). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * A fake model server on 127.0.0.1 with an ephemeral port. It records requests (bounded), answers
 * each through the protocol handler, and after `maxRequests` answers 500 to everything so a
 * confused agent cannot loop forever. `close()` ends open connections too; call it in afterEach.
 */
export class FakeModelServer {
  /** The first `maxRecorded` requests. */
  readonly requests: RecordedRequest[] = [];
  /** Every request received, recorded or not. */
  requestCount = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #options: ScriptOptions;
  #port = 0;

  protected constructor(
    readonly protocol: string,
    handler: Handler,
    options: ScriptOptions,
  ) {
    this.#options = options;
    this.#server = createServer((req, res) => this.#serve(req, res, handler));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts listening; resolves once the port is known. */
  protected async listen(): Promise<this> {
    await new Promise<void>((resolvePromise, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolvePromise());
    });
    const address = this.#server.address();
    if (!address || typeof address === 'string') throw new Error(`${this.protocol}: no TCP address`);
    this.#port = address.port;
    return this;
  }

  /** `http://127.0.0.1:<port>` (no trailing slash). */
  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get port(): number {
    return this.#port;
  }

  /** Stops accepting connections and destroys open ones. Safe to call twice. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    if (!this.#server.listening) return;
    await new Promise<void>((resolvePromise) => this.#server.close(() => resolvePromise()));
  }

  #serve(req: IncomingMessage, res: ServerResponse, handler: Handler): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= (this.#options.maxBodyBytes ?? MAX_BODY_BYTES)) chunks.push(chunk);
    });
    req.on('end', async () => {
      this.requestCount += 1;
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const recorded: RecordedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, at: Date.now() };
      if (this.requests.length < (this.#options.maxRecorded ?? 100)) this.requests.push(recorded);
      let answer: Answer;
      if (this.requestCount > (this.#options.maxRequests ?? 200)) {
        answer = { status: 500, json: { error: { message: `fake ${this.protocol} server: request limit reached` } } };
      } else {
        try {
          answer = await handler(recorded);
        } catch (error) {
          answer = { status: 500, json: { error: { message: `fake ${this.protocol} server: ${String(error)}` } } };
        }
      }
      if ('sse' in answer) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...answer.headers });
        for (const frame of answer.sse) res.write(frame);
        res.end();
      } else {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.json));
      }
    });
  }
}
