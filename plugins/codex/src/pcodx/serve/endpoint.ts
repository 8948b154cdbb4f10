import { isAbsolute } from 'node:path';
import { isIP } from 'node:net';

/**
 * Where a websocket of the serve lives: a unix-domain socket (the default on both sides) or a TCP
 * `ws://HOST:PORT`. Codex 0.171 speaks the same websocket protocol over both
 * (`codex app-server --listen unix://PATH|ws://IP:PORT`, `codex --remote unix://PATH|ws://…`).
 */
export type Endpoint =
  /** `path` undefined: a socket the serve makes in its own owner-only directory. */
  | { readonly kind: 'unix'; readonly path: string | undefined }
  /** Host as written (brackets stripped from IPv6); port 0 picks a free port. */
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number };

/** The longest unix socket path Linux accepts (`sun_path` is 108 bytes with the terminating NUL; unix(7)). */
export const MAX_UNIX_PATH_BYTES = 107;

/**
 * Parses `unix://`, `unix:///ABSOLUTE/PATH` or `ws://HOST:PORT` (no path, no `wss://`: the serve
 * speaks plain websockets). Throws naming `what` (the flag) and the reason.
 */
export function parseEndpoint(text: string, what: string): Endpoint {
  if (text.startsWith('unix://')) {
    const path = text.slice('unix://'.length);
    if (path === '') return { kind: 'unix', path: undefined };
    if (!isAbsolute(path)) throw new Error(`${what} unix://PATH needs an absolute path (got ${JSON.stringify(text)})`);
    // ws addresses a unix socket as `ws+unix:PATH:/request-path`: a colon in PATH would split it.
    if (path.includes(':')) throw new Error(`${what} unix://PATH cannot contain ':' (got ${JSON.stringify(text)})`);
    if (Buffer.byteLength(path) > MAX_UNIX_PATH_BYTES) throw new Error(`${what} ${path} is longer than the ${MAX_UNIX_PATH_BYTES} bytes a unix socket path may have`);
    return { kind: 'unix', path };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${what} must be unix://, unix:///PATH or ws://HOST:PORT (got ${JSON.stringify(text)})`);
  }
  if (url.protocol !== 'ws:') throw new Error(`${what} must be unix://, unix:///PATH or ws://HOST:PORT (got ${url.protocol}//)`);
  if (url.pathname !== '/' && url.pathname !== '') throw new Error(`${what} takes no path (got ${url.pathname})`);
  if (url.port === '') throw new Error(`${what} needs an explicit port (ws://HOST:PORT; 0 picks a free one)`);
  return { kind: 'tcp', host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port) };
}

/** The address as a Codex client takes it (`--remote`): `unix:///path` or `ws://host:port`. */
export function endpointUrl(endpoint: Endpoint): string {
  if (endpoint.kind === 'unix') return `unix://${endpoint.path ?? ''}`;
  return `ws://${isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
}

/** The URL the `ws` package connects to: `ws+unix:PATH:/` for a unix socket. */
export function wsClientUrl(endpoint: Endpoint): string {
  if (endpoint.kind === 'unix') return `ws+unix:${endpoint.path}:/`;
  return endpointUrl(endpoint);
}

/** True for 127.0.0.0/8, ::1 and `localhost`: the addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
