import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer } from 'node:net';
import { lstatSync, unlinkSync } from 'node:fs';
import { WebSocketServer } from 'ws';
import { endpointUrl, type Endpoint } from './endpoint.js';
import { bearerMatches } from './token.js';

/** The serve's own listening socket. */
export interface Listener {
  readonly server: WebSocketServer;
  /** Where clients connect (`codex --remote <url>`), with the real port. */
  readonly url: string;
  /** Stops listening (a unix socket file is removed). */
  close(): Promise<void>;
}

/**
 * Listens for Codex clients on `endpoint` (a unix socket with its path set, or TCP). Upgrades that
 * carry an `Origin` header are refused with 403: a browser page must not drive the user's Codex
 * (the real app-server refuses them too). With `token`, an upgrade without `Authorization: Bearer
 * <token>` is refused with 401 before any frame is read. Plain HTTP requests get 426. The
 * compression header the clients offer is not accepted (no extension is negotiated).
 */
export async function listenWs(endpoint: Endpoint, options: { token?: string; maxPayload: number }): Promise<Listener> {
  const http: Server = createHttpServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('websocket upgrade required\n');
  });
  const server = new WebSocketServer({
    server: http,
    perMessageDeflate: false,
    maxPayload: options.maxPayload,
    verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) => {
      if (info.req.headers.origin !== undefined) return done(false, 403, 'Forbidden: browser origins are refused');
      if (options.token !== undefined && !bearerMatches(info.req.headers.authorization, options.token)) return done(false, 401, 'Unauthorized: this serve needs its capability token');
      done(true);
    },
  });
  if (endpoint.kind === 'unix') await clearStaleSocket(endpoint.path!);
  await new Promise<void>((resolvePromise, reject) => {
    http.once('error', reject);
    if (endpoint.kind === 'unix') http.listen(endpoint.path!, () => resolvePromise());
    else http.listen(endpoint.port, endpoint.host, () => resolvePromise());
  });
  const address = http.address();
  const url = endpoint.kind === 'unix' ? endpointUrl(endpoint) : endpointUrl({ ...endpoint, port: typeof address === 'object' && address ? address.port : endpoint.port });
  return {
    server,
    url,
    close: async () => {
      for (const socket of server.clients) socket.terminate();
      await new Promise<void>((r) => server.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
      if (endpoint.kind === 'unix') {
        try {
          unlinkSync(endpoint.path!);
        } catch {
          // Node removed it already.
        }
      }
    },
  };
}

/** A socket file nobody listens on any more (a serve killed before removing it) is removed; a live one is an error. */
async function clearStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return;
  }
  if (!isSocket) throw new Error(`${path} exists and is not a socket`);
  const alive = await new Promise<boolean>((resolvePromise) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
  if (alive) throw new Error(`another process already listens on ${path}`);
  unlinkSync(path);
}

/** A free TCP port on `host` (bound, read and released: the caller binds it right after). */
export async function freePort(host: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePromise(port));
    });
  });
}
