import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer } from 'node:net';
import { linkSync, lstatSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
  let socketFile: { readonly path: string; readonly dev: number; readonly ino: number } | undefined;
  if (endpoint.kind === 'unix') {
    socketFile = await listenUnix(http, endpoint.path!);
  } else {
    await listening(http, () => http.listen(endpoint.port, endpoint.host));
  }
  const address = http.address();
  const url = endpoint.kind === 'unix' ? endpointUrl(endpoint) : endpointUrl({ ...endpoint, port: typeof address === 'object' && address ? address.port : endpoint.port });
  return {
    server,
    url,
    close: async () => {
      for (const socket of server.clients) socket.terminate();
      await new Promise<void>((r) => server.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
      // Only the socket this serve made: a file put at the path since (another serve's socket,
      // anything the user made there) stays.
      if (socketFile && sameFile(socketFile.path, socketFile)) {
        try {
          unlinkSync(socketFile.path);
        } catch {
          // Gone already.
        }
      }
    },
  };
}

/** Resolves once `server` listens (`listen` starts it), rejects with its listen error. */
function listening(server: Server, listen: () => void): Promise<void> {
  return new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolvePromise();
    });
    listen();
  });
}

/** Longest unix socket path bind(2) takes on Linux (`sun_path` is 108 bytes with its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * Makes `server` listen on a unix socket at `path` and returns that socket file's identity. The
 * socket is bound in a private directory beside `path` and given its name with link(2), which never
 * replaces a file that appeared there meanwhile (EEXIST), and libuv, which unlinks the path it
 * bound by name when the server closes, then removes only that private name. Where the private
 * name would be too long for a socket, and on Windows (no hard links to sockets), it binds `path` itself.
 */
async function listenUnix(server: Server, path: string): Promise<{ readonly path: string; readonly dev: number; readonly ino: number }> {
  const dir = dirname(path);
  const scratchName = join(dir, `.${basename(path)}.XXXXXX`, 's');
  if (process.platform === 'win32' || Buffer.byteLength(scratchName) > MAX_SOCKET_PATH_BYTES) {
    await listening(server, () => server.listen(path));
    return { path, ...identity(path) };
  }
  const scratch = mkdtempSync(join(dir, `.${basename(path)}.`));
  try {
    const bound = join(scratch, 's');
    await listening(server, () => server.listen(bound));
    try {
      linkSync(bound, path);
    } catch (error) {
      await new Promise<void>((r) => server.close(() => r()));
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new Error(`${path} appeared while the serve started; another process made it`);
      throw error;
    }
    return { path, ...identity(path) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function identity(path: string): { readonly dev: number; readonly ino: number } {
  const stat = lstatSync(path);
  return { dev: stat.dev, ino: stat.ino };
}

/** Whether `path` is still the file `known` names (same device and inode). */
function sameFile(path: string, known: { readonly dev: number; readonly ino: number }): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat !== undefined && stat.isSocket() && stat.dev === known.dev && stat.ino === known.ino;
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
