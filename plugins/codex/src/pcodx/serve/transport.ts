import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { WebSocketServer } from 'ws';

/** A `ws://host:port` endpoint, parsed. */
export interface WsEndpoint {
  /** Host as written (brackets stripped from IPv6). */
  readonly host: string;
  readonly port: number;
}

/** Parses `ws://host:port` (no path, no `wss://`: the app-server listener speaks plain ws). Throws with the reason. */
export function parseWsUrl(text: string, what: string): WsEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${what} must be a ws://HOST:PORT URL (got ${JSON.stringify(text)})`);
  }
  if (url.protocol !== 'ws:') throw new Error(`${what} must use ws:// (got ${url.protocol}//)`);
  if (url.pathname !== '/' && url.pathname !== '') throw new Error(`${what} takes no path (got ${url.pathname})`);
  if (url.port === '') throw new Error(`${what} needs an explicit port (ws://HOST:PORT; 0 picks a free one)`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(url.port) };
}

/** `ws://host:port` for an endpoint (IPv6 hosts in brackets). */
export function wsUrl(endpoint: WsEndpoint): string {
  return `ws://${isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
}

/** True for 127.0.0.0/8, ::1 and `localhost`: the addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/**
 * The proxy's listening socket. Upgrades that carry an `Origin` header are refused with 403: a
 * browser page must not be able to drive the user's Codex through a loopback port (the real
 * app-server refuses them too, research/pcodx-codex.md §2.1). Codex clients send no Origin.
 * The compression header the clients offer is not accepted (no extension is negotiated).
 */
export async function listenWs(endpoint: WsEndpoint): Promise<{ server: WebSocketServer; port: number }> {
  const server = new WebSocketServer({
    host: endpoint.host,
    port: endpoint.port,
    perMessageDeflate: false,
    maxPayload: 64 * 1024 * 1024,
    verifyClient: (info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) => {
      if (info.req.headers.origin !== undefined) done(false, 403, 'Forbidden: browser origins are refused');
      else done(true);
    },
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('listening', () => resolvePromise());
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : endpoint.port;
  return { server, port };
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

/** A `codex app-server` the serve started and will stop. */
export interface UpstreamProcess {
  readonly child: ChildProcess;
  /** The last 4 KiB of its stderr, for error messages. */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGTERM at once without waiting (for a process `exit` handler, which cannot wait). */
  kill(): void;
}

/**
 * Starts `<codexBin> app-server --listen ws://host:port` and waits until the port accepts TCP
 * connections (research §1.9: up to 10 s by default). Throws when the binary cannot start, exits
 * early, or the port stays closed; the child is stopped first.
 */
export async function launchUpstream(options: { codexBin: string; endpoint: WsEndpoint; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<UpstreamProcess> {
  // Its own process group: `codex` is a launcher that starts the native binary, and stopping the
  // group reaches both even if the launcher does not pass the signal on.
  const child = spawn(options.codexBin, ['app-server', '--listen', wsUrl(options.endpoint)], { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4096);
  });
  const exited = new Promise<void>((resolvePromise) => child.once('close', () => resolvePromise()));
  const spawnError = new Promise<Error>((resolvePromise) => child.once('error', resolvePromise));
  const handle: UpstreamProcess = {
    child,
    stderrTail: () => tail,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) signalGroup(child, 'SIGTERM');
    },
    stop: async (graceMs = 3000) => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      signalGroup(child, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let failure: string | undefined;
  void spawnError.then((error) => (failure = `cannot start ${options.codexBin}: ${error.message}`));
  void exited.then(() => (failure ??= `${options.codexBin} app-server exited (code ${child.exitCode ?? child.signalCode}) before listening: ${tail.trim().split('\n').slice(-3).join(' | ')}`));
  while (Date.now() < deadline) {
    if (failure) break;
    if (await portOpen(options.endpoint)) return handle;
    await new Promise((r) => setTimeout(r, 100));
  }
  await handle.stop(500);
  throw new Error(failure ?? `${options.codexBin} app-server did not listen on ${wsUrl(options.endpoint)} within ${options.timeoutMs ?? 10_000} ms`);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal);
  }
}

function portOpen(endpoint: WsEndpoint): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = connect({ host: endpoint.host, port: endpoint.port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}
