import { FrameCapture, writeNewPrivate } from './capture.js';
import { MAX_FRAME_BYTES } from './frames.js';
import { endpointUrl, isLoopback, MAX_UNIX_PATH_BYTES, parseEndpoint, wsClientUrl, type Endpoint } from './endpoint.js';
import { Relay, type PcodxContext, type ServeLog } from './relay.js';
import { cleanStaleServes, runtimeRoot, ServeDir, socketParent, UPSTREAM_SOCKET } from './runtime-dir.js';
import { newToken } from './token.js';
import { freePort, listenWs, type Listener } from './transport.js';
import { launchAppServer, type AppServer } from './upstream.js';

/** The largest frame relayed in either direction. */
const MAX_PAYLOAD = MAX_FRAME_BYTES;

/** Options of {@link startServe} (the flags of `cordon pcodx serve`). */
export interface ServeOptions {
  /** `--listen`: `unix://` (a socket in the serve's own directory), `unix:///PATH` or `ws://HOST:PORT` (port 0: a free one). */
  readonly listen: string;
  /** `--upstream`: `unix://` (default), `unix:///PATH` (only with `launch: false`) or `ws://IP:PORT` (port 0: a free one). */
  readonly upstream: string;
  /** Start `codexBin app-server` (false under `--no-launch-upstream`). */
  readonly launch: boolean;
  /** `--codex-bin` (default `codex` on PATH). */
  readonly codexBin?: string;
  /** Environment and cwd of the launched app-server. */
  readonly upstreamEnv?: NodeJS.ProcessEnv;
  readonly upstreamCwd?: string;
  /** `--allow-remote`: needed to listen on anything but loopback. */
  readonly allowRemote?: boolean;
  /**
   * The capability token a TCP listener requires (`PCODX_SERVE_TOKEN`); absent: a new one is made.
   * Ignored on a unix socket (the socket's owner-only directory is the access control there).
   */
  readonly listenToken?: string;
  /** Write the listener's token to `serve.token` (0600) in the serve's directory, for a client to read. */
  readonly writeTokenFile?: boolean;
  /** `Authorization` token for an app-server the user started (`--no-launch-upstream` on TCP). */
  readonly upstreamToken?: string;
  /** Root of the serve directories (default {@link runtimeRoot}). */
  readonly runtimeDir?: string;
  /** Set by `--enable-pcodx-tools`. */
  readonly pcodx?: PcodxContext;
  /** `PCODX_WS_FIXTURE_DIR`. */
  readonly fixtureDir?: string;
  readonly log: ServeLog;
}

/** A running serve. */
export interface RunningServe {
  /** The URL clients use (`codex --remote <listenUrl>`): `unix:///…` or `ws://host:port` with the real port. */
  readonly listenUrl: string;
  /** What a client library connects to (`ws+unix:…:/` or `ws://…`). */
  readonly listenClientUrl: string;
  /** Headers a client must send: `Authorization: Bearer <token>` on TCP, none on a unix socket. */
  readonly clientHeaders: Readonly<Record<string, string>>;
  /** The owner-only file holding the TCP listener's token, when written. */
  readonly tokenFile?: string;
  readonly upstreamUrl: string;
  /** The launched app-server's pid, when the serve started it. */
  readonly upstreamPid?: number;
  /** The serve's own owner-only directory, when it made one. */
  readonly dir?: string;
  /** Resolves with a reason if a launched app-server ends while the serve runs (the serve stops relaying then). */
  readonly upstreamEnded: Promise<string>;
  /** Stops listening, closes every connection, stops a launched app-server and removes the serve's directory. */
  close(): Promise<void>;
}

/**
 * Starts the proxy: checks both addresses, launches the app-server where only this serve can
 * reach it and proves the listener is that process's (upstream.ts), then relays each client
 * connection over its own upstream connection — only while that app-server runs. A TCP listener
 * requires a capability token. Throws (after stopping anything it started) when an address is
 * refused or the app-server cannot be started or proven.
 */
export async function startServe(options: ServeOptions): Promise<RunningServe> {
  let listen = parseEndpoint(options.listen, '--listen');
  if (listen.kind === 'tcp' && !isLoopback(listen.host) && !options.allowRemote) {
    throw new Error(`--listen ${options.listen} is not a loopback address; anyone who reaches it drives your Codex: add --allow-remote to accept that`);
  }
  let upstream = parseEndpoint(options.upstream, '--upstream');
  if (options.launch && upstream.kind === 'unix' && upstream.path !== undefined) {
    throw new Error(`--upstream ${options.upstream}: a launched app-server listens on unix:// (a socket in the serve's own directory) or ws://IP:PORT`);
  }
  if (options.launch && upstream.kind === 'tcp' && !isLoopback(upstream.host)) throw new Error(`--upstream ${options.upstream}: a launched app-server listens on loopback only`);
  if (!options.launch && (upstream.kind === 'unix' ? upstream.path === undefined : upstream.port === 0)) {
    throw new Error('--no-launch-upstream needs the address of the running app-server: --upstream unix:///PATH or ws://HOST:PORT');
  }
  const needsDir = options.launch || (listen.kind === 'unix' && listen.path === undefined) || (listen.kind === 'tcp' && options.writeTokenFile && options.listenToken === undefined);
  const listenToken = listen.kind === 'tcp' ? (options.listenToken ?? newToken()) : undefined;

  let dir: ServeDir | undefined;
  let appServer: AppServer | undefined;
  let listener: Listener | undefined;
  let orphanGuard: (() => void) | undefined;
  let tokenFile: string | undefined;
  const cleanup = async () => {
    const open = listener;
    listener = undefined;
    await open?.close();
    await appServer?.stop();
    if (orphanGuard) process.off('exit', orphanGuard);
    dir?.remove();
  };
  try {
    if (needsDir) {
      const root = options.runtimeDir ?? runtimeRoot();
      await cleanStaleServes(root, options.log);
      dir = ServeDir.create(root);
      const made = dir;
      // If this process ends without close() (an uncaught error, process.exit), nothing it started may outlive it.
      orphanGuard = () => {
        appServer?.killNow();
        made.remove();
      };
      process.once('exit', orphanGuard);
    }
    if (listen.kind === 'unix') {
      if (listen.path === undefined) listen = { kind: 'unix', path: socketPath(dir!, 'serve.sock') };
      else socketParent(listen.path);
    }
    if (options.launch) {
      if (upstream.kind === 'unix') upstream = { kind: 'unix', path: socketPath(dir!, UPSTREAM_SOCKET) };
      else if (upstream.port === 0) upstream = { ...upstream, port: await freePort(upstream.host) };
      appServer = await launchAppServer({ codexBin: options.codexBin ?? 'codex', endpoint: upstream, dir: dir!, env: options.upstreamEnv, cwd: options.upstreamCwd });
    }
    try {
      listener = await listenWs(listen, { token: listenToken, maxPayload: MAX_PAYLOAD });
    } catch (error) {
      throw new Error(`cannot listen on ${endpointUrl(listen)}: ${(error as Error).message}`);
    }
    if (listenToken !== undefined && options.writeTokenFile && options.listenToken === undefined) {
      tokenFile = dir!.file('serve.token');
      writeNewPrivate(tokenFile, `${listenToken}\n`);
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  const listenUrl = listener.url;

  const upstreamClientUrl = appServer?.clientUrl ?? wsClientUrl(upstream);
  const upstreamAuthorization = appServer?.authorization ?? (options.upstreamToken ? `Bearer ${options.upstreamToken}` : undefined);
  const captureRun = options.fixtureDir ? captureRunDir(options.fixtureDir, options.log) : undefined;
  const relays = new Set<Relay>();
  let connections = 0;
  let upstreamGone: string | undefined;
  const upstreamEnded = appServer ? appServer.ended.then((how) => (upstreamGone = how)) : new Promise<string>(() => undefined);
  const server = listener.server;
  server.on('connection', (socket) => {
    connections += 1;
    const connection = connections;
    // Once the app-server this serve started is gone, its address may be taken by anyone: relay nothing.
    if (upstreamGone !== undefined || (appServer && !appServer.holdsListener())) {
      const reason = upstreamGone !== undefined ? 'the app-server has exited' : 'the app-server no longer holds its listener';
      options.log('client_refused', { connection, reason });
      socket.close(1011, reason);
      return;
    }
    const capture = FrameCapture.forConnection(captureRun, connection, options.log);
    options.log('client_connected', { connection });
    const relay = new Relay(socket, { upstreamUrl: upstreamClientUrl, pcodx: options.pcodx, log: options.log, capture, connection, upstreamAuthorization });
    relays.add(relay);
    void relay.closed.then(() => relays.delete(relay));
  });
  server.on('error', (error) => options.log('listen_error', { message: error.message }));
  return {
    listenUrl,
    listenClientUrl: wsClientUrl(listen.kind === 'unix' ? listen : parseEndpoint(listenUrl, '--listen')),
    clientHeaders: listenToken !== undefined ? { authorization: `Bearer ${listenToken}` } : {},
    tokenFile,
    upstreamUrl: appServer?.url ?? endpointUrl(upstream),
    upstreamPid: appServer?.pid,
    dir: dir?.path,
    upstreamEnded,
    close: async () => {
      const open = listener;
      listener = undefined;
      await open?.close();
      await Promise.race([Promise.all([...relays].map((r) => r.closed)), new Promise((r) => setTimeout(r, 2000))]);
      if (options.pcodx) await saveUnsaved(options.pcodx, options.log);
      await cleanup();
    },
  };
}

/**
 * One last try to record the turns whose ingestion failed, oldest first per session; what still
 * fails is logged (`event=unsaved_turns_lost`, counts only) since the serve cannot keep it.
 */
async function saveUnsaved(pcodx: PcodxContext, log: ServeLog): Promise<void> {
  for (const [sessionId, queue] of pcodx.session.unsaved) {
    while (queue.length) {
      try {
        await pcodx.ledger.record(sessionId, queue[0]!);
        queue.shift();
      } catch (error) {
        log('unsaved_turns_lost', { turns: queue.length, message: (error as Error).message });
        break;
      }
    }
    if (queue.length === 0) pcodx.session.unsaved.delete(sessionId);
  }
}

/** A socket path in the serve's directory, refused when it would not fit a unix socket address. */
function socketPath(dir: ServeDir, name: string): string {
  const path = dir.file(name);
  if (Buffer.byteLength(path) > MAX_UNIX_PATH_BYTES) {
    throw new Error(`the socket path ${path} is longer than ${MAX_UNIX_PATH_BYTES} bytes; set CORDON_RUNTIME_DIR to a shorter directory`);
  }
  return path;
}

/** This serve's capture run directory, or undefined (logged) when the fixture directory is refused. */
function captureRunDir(root: string, log: ServeLog): string | undefined {
  try {
    return FrameCapture.runDir(root);
  } catch (error) {
    log('capture_failed', { message: (error as Error).message });
    return undefined;
  }
}

export type { Endpoint };
