import { connect } from 'node:net';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { endpointUrl, wsClientUrl, type Endpoint } from './endpoint.js';
import { groupMembers, procAvailable, procStat, socketHolders, stillRunning, tcpListenerInodes, unixListenerInodes, type ProcessId } from './proc.js';
import type { ServeDir } from './runtime-dir.js';
import { newToken, tokenSha256 } from './token.js';
import { startWatched } from './watchdog.js';

/** The `codex app-server` a serve started, proven to hold the listener the serve relays to. */
export interface AppServer {
  /** Its pid (the launcher's; also the id of its process group). */
  readonly pid: number;
  /** Its address as a Codex client takes it (`unix:///…` or `ws://127.0.0.1:PORT`). */
  readonly url: string;
  /** What the relay connects to (`ws+unix:…:/` or `ws://…`). */
  readonly clientUrl: string;
  /** `Bearer <token>` for a TCP app-server (it runs with `--ws-auth capability-token`); undefined on a unix socket. */
  readonly authorization: string | undefined;
  /** Resolves with how it ended (`code 1`, `signal SIGKILL`, …) whenever it ends. */
  readonly ended: Promise<string>;
  /** True until it has ended. */
  running(): boolean;
  /**
   * True while it runs and (where /proc exists) still holds the listener at its address: checked
   * again for every client connection, so a listener that changed hands is never relayed to.
   */
  holdsListener(): boolean;
  /** Stops it (SIGTERM to its process group, SIGKILL after 3 s) and its watchdog; resolves when both are gone. */
  stop(): Promise<void>;
  /** SIGTERM to its recorded processes at once, without waiting (for a process `exit` handler). */
  killNow(): void;
}

/** Who holds the listener at an address, as far as /proc tells. */
type ListenerState = 'none' | 'ours' | 'stranger';

/**
 * Starts `<codexBin> app-server --listen <endpoint>` under the watchdog (watchdog.ts) and waits —
 * up to `timeoutMs` — until the listener at `endpoint` is held by a process of the group it
 * started, read from /proc (the socket's inode among the group's open descriptors). It never
 * connects to an address before that proof, so a stranger already listening there (a port taken
 * by another process, a socket planted at the path) receives nothing: the serve fails with an
 * error instead. A unix `endpoint` must be a path in the serve's own owner-only directory. A TCP
 * endpoint gets a fresh capability token (`--ws-auth capability-token --ws-token-sha256 <digest>`:
 * argv holds only the digest). Without /proc only the unix socket in the serve's own directory is
 * accepted (checked by connecting to it), and TCP is refused.
 */
export async function launchAppServer(options: {
  codexBin: string;
  endpoint: Endpoint;
  dir: ServeDir;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}): Promise<AppServer> {
  const { endpoint } = options;
  const proc = procAvailable();
  if (endpoint.kind === 'tcp' && !proc) throw new Error(`cannot prove which process listens on ${endpointUrl(endpoint)} on this system (no /proc); use the default unix socket upstream`);
  const args = ['app-server', '--listen', endpointUrl(endpoint)];
  let authorization: string | undefined;
  if (endpoint.kind === 'tcp') {
    const token = newToken();
    args.push('--ws-auth', 'capability-token', '--ws-token-sha256', tokenSha256(token));
    authorization = `Bearer ${token}`;
  }
  const watched = startWatched({ bin: options.codexBin, args, env: options.env, cwd: options.cwd });
  let ended: string | undefined;
  void watched.ended.then((how) => (ended = how));
  let recorded: ProcessId[] = [];
  const stop = async () => {
    await watched.stop();
    // The watchdog stops the group; anything it missed (it was killed itself) is stopped here.
    for (const id of recorded) {
      if (stillRunning(id)) {
        try {
          process.kill(id.pid, 'SIGKILL');
        } catch {
          // Gone in between.
        }
      }
    }
  };
  const failure = (message: string) => {
    const gist = stderrGist(watched.stderrTail());
    // The pinned Codex says no more than this when its home is missing.
    const home = gist === '' || /No such file or directory|os error 2/.test(gist) ? missingCodexHome(options.env ?? process.env) : undefined;
    return new Error(`${message}${gist ? `: ${gist}` : ''}${home ? `; ${home}` : ''}`);
  };
  let pid: number;
  try {
    pid = await watched.pid;
  } catch (error) {
    await stop();
    throw error;
  }
  const watchdogStat = procStat(watched.watchdog.pid!);
  if (watchdogStat) options.dir.record({ watchdog: { pid: watchdogStat.pid, start: watchdogStat.start } });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (ended !== undefined) {
      await stop();
      throw failure(`${options.codexBin} app-server exited (${ended}) before listening on ${endpointUrl(endpoint)}`);
    }
    const state = proc ? listenerState(endpoint, pid) : await unixConnectable(endpoint);
    if (state === 'ours') break;
    if (state === 'stranger') {
      await stop();
      throw new Error(`another process (not the app-server this serve started, pid ${pid}) listens on ${endpointUrl(endpoint)}; refusing to relay to it`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw failure(`${options.codexBin} app-server did not listen on ${endpointUrl(endpoint)} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  recorded = proc ? groupMembers(pid).map((s) => ({ pid: s.pid, start: s.start })) : [];
  if (recorded.length) options.dir.record({ appServer: recorded });
  return {
    pid,
    url: endpointUrl(endpoint),
    clientUrl: wsClientUrl(endpoint),
    authorization,
    ended: watched.ended,
    running: () => ended === undefined,
    holdsListener: () => ended === undefined && (!proc || listenerState(endpoint, pid) === 'ours'),
    stop,
    killNow: () => {
      if (ended !== undefined) return;
      try {
        // Its process group: the launcher and the native binary it starts.
        process.kill(-pid, 'SIGTERM');
      } catch {
        // Gone.
      }
    },
  };
}

/** Whether the listener at `endpoint` exists and is held by a process of group `pgid` (Linux /proc). */
export function listenerState(endpoint: Endpoint, pgid: number): ListenerState {
  let inodes: string[];
  if (endpoint.kind === 'unix') {
    let real: string;
    try {
      lstatSync(endpoint.path!);
      // Codex makes PATH a link to the socket it binds elsewhere; /proc names the bound path.
      real = realpathSync(endpoint.path!);
    } catch {
      return 'none';
    }
    inodes = unixListenerInodes(real);
  } else {
    inodes = tcpListenerInodes(endpoint.host, endpoint.port);
  }
  if (inodes.length === 0) return 'none';
  const members = groupMembers(pgid).map((s) => s.pid);
  return inodes.every((inode) => socketHolders(inode, members).length > 0) ? 'ours' : 'stranger';
}

/** Without /proc: the socket in the serve's own directory accepts a connection. */
function unixConnectable(endpoint: Endpoint): Promise<ListenerState> {
  if (endpoint.kind !== 'unix') return Promise.resolve('none');
  return new Promise((resolvePromise) => {
    const socket = connect({ path: endpoint.path! });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise('ours');
    });
    socket.once('error', () => resolvePromise('none'));
  });
}

/**
 * What an app-server's stderr says about why it stopped, in one line: its `Error:` lines (Rust's
 * `main` prints the error there), else its last three lines that are not a backtrace's frames
 * (with `RUST_BACKTRACE` set, the tail is frames like `   4: <unknown>`), joined with ` | `.
 */
export function stderrGist(tail: string): string {
  const lines = tail.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => /^error\b/i.test(l));
  const frame = /^(\d+:\s|at\s|stack backtrace:|note: (run with|some details are omitted)|Stack backtrace:)/;
  return (errors.length > 0 ? errors : lines.filter((l) => !frame.test(l))).slice(-3).join(' | ');
}

/**
 * A note when Codex's home (`CODEX_HOME`, else `~/.codex`) does not exist: the pinned Codex CLI
 * (scripts/agents.json) then exits at start with only `Error: No such file or directory (os error
 * 2)`. Undefined when it exists.
 */
export function missingCodexHome(env: NodeJS.ProcessEnv): string | undefined {
  const home = env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
  return existsSync(home) ? undefined : `Codex's home ${home} does not exist (${env.CODEX_HOME ? 'CODEX_HOME' : 'the default'}): run \`codex\` once, or create it`;
}
