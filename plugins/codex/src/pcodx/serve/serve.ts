import type { WebSocketServer } from 'ws';
import { FrameCapture } from './capture.js';
import { Relay, type PcodxContext, type ServeLog } from './relay.js';
import { freePort, isLoopback, launchUpstream, listenWs, parseWsUrl, wsUrl, type UpstreamProcess } from './transport.js';

/** Options of {@link startServe} (the flags of `cordon pcodx serve`). */
export interface ServeOptions {
  /** `--listen ws://HOST:PORT` (port 0: a free one). */
  readonly listen: string;
  /** `--upstream ws://HOST:PORT`; with a launched upstream, port 0 picks a free one. */
  readonly upstream: string;
  /** Start `codexBin app-server --listen <upstream>` (false under `--no-launch-upstream`). */
  readonly launch: boolean;
  /** `--codex-bin` (default `codex` on PATH). */
  readonly codexBin?: string;
  /** Environment and cwd of the launched app-server. */
  readonly upstreamEnv?: NodeJS.ProcessEnv;
  readonly upstreamCwd?: string;
  /** `--allow-remote`: needed to listen on anything but loopback. */
  readonly allowRemote?: boolean;
  /** Set by `--enable-pcodx-tools`. */
  readonly pcodx?: PcodxContext;
  /** `PCODX_WS_FIXTURE_DIR`. */
  readonly fixtureDir?: string;
  readonly log: ServeLog;
}

/** A running serve. */
export interface RunningServe {
  /** The URL clients use (`codex --remote <listenUrl>`), with the real port. */
  readonly listenUrl: string;
  readonly upstreamUrl: string;
  /** The launched app-server's pid, when the serve started it. */
  readonly upstreamPid?: number;
  /** Stops listening, closes every connection and stops a launched app-server. */
  close(): Promise<void>;
}

/**
 * Starts the proxy (research/pcodx-codex.md §1.9 and §4 point 2): checks the listen address
 * (loopback unless `allowRemote`), launches the upstream app-server when asked and waits for it,
 * then relays each client connection over its own upstream connection. Throws (after stopping
 * anything it started) when an address is refused or the app-server cannot be started.
 */
export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const listen = parseWsUrl(options.listen, '--listen');
  if (!isLoopback(listen.host) && !options.allowRemote) {
    throw new Error(`--listen ${options.listen} is not a loopback address; anyone who reaches it drives your Codex: add --allow-remote to accept that`);
  }
  let upstream = parseWsUrl(options.upstream, '--upstream');
  let child: UpstreamProcess | undefined;
  if (options.launch) {
    if (!isLoopback(upstream.host)) throw new Error(`--upstream ${options.upstream}: a launched app-server listens on loopback only`);
    if (upstream.port === 0) upstream = { ...upstream, port: await freePort(upstream.host) };
    child = await launchUpstream({ codexBin: options.codexBin ?? 'codex', endpoint: upstream, env: options.upstreamEnv, cwd: options.upstreamCwd });
    child.child.once('close', (code, signal) => options.log('upstream_exited', { code: code ?? -1, signal: signal ?? 'none' }));
    // If this process ends without close() (an uncaught error, process.exit), the app-server must not outlive it.
    const orphanGuard = () => child?.kill();
    process.once('exit', orphanGuard);
    child.child.once('close', () => process.off('exit', orphanGuard));
  } else if (upstream.port === 0) {
    throw new Error('--upstream needs a real port with --no-launch-upstream');
  }
  const upstreamUrl = wsUrl(upstream);
  let server: WebSocketServer;
  let port: number;
  try {
    ({ server, port } = await listenWs(listen));
  } catch (error) {
    await child?.stop();
    throw new Error(`cannot listen on ${options.listen}: ${(error as Error).message}`);
  }
  const relays = new Set<Relay>();
  let connections = 0;
  server.on('connection', (socket, request) => {
    connections += 1;
    const connection = connections;
    let capture: FrameCapture | undefined;
    try {
      capture = FrameCapture.forConnection(options.fixtureDir, connection);
    } catch (error) {
      options.log('fixture_dir_refused', { message: (error as Error).message });
    }
    options.log('client_connected', { connection });
    const relay = new Relay(socket, { upstreamUrl, pcodx: options.pcodx, log: options.log, capture, connection, authorization: request.headers.authorization });
    relays.add(relay);
    void relay.closed.then(() => relays.delete(relay));
  });
  server.on('error', (error) => options.log('listen_error', { message: error.message }));
  return {
    listenUrl: wsUrl({ host: listen.host, port }),
    upstreamUrl,
    upstreamPid: child?.child.pid,
    close: async () => {
      for (const socket of server.clients) socket.terminate();
      await new Promise<void>((r) => server.close(() => r()));
      await Promise.race([Promise.all([...relays].map((r) => r.closed)), new Promise((r) => setTimeout(r, 2000))]);
      await child?.stop();
    },
  };
}
