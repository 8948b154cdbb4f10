import type { LedgerHandle } from '@cordon/plugin-api';
import { resolve } from 'node:path';
import { privateDir } from './capture.js';
import { SessionState } from './threads.js';
import { startServe, type RunningServe, type ServeOptions } from './serve.js';
import { runtimeRoot } from './runtime-dir.js';
import { MIN_TOKEN_LENGTH, SERVE_TOKEN_ENV } from './token.js';
import type { ServeLog } from './relay.js';
import { PcodxRuntimeError } from '../errors.js';

/**
 * A value bare in a log line: printable ASCII but the space, `"` and `=` (which would make the
 * `key=value` line ambiguous). Anything else is quoted.
 */
const BARE = /^[\x21\x23-\x3c\x3e-\x7e]+$/;

/**
 * A log value as it goes into a `key=value` line: bare when {@link BARE}, else JSON-quoted and then
 * passed through `escape` (the host's terminal escaping, `api.services.terminal.lines`). JSON
 * escapes the C0 controls (an ESC, a line break: one event stays one line); the terminal escaping
 * turns the rest a terminal would act on or not show (DEL, C1 controls such as NEL and CSI,
 * U+2028, bidirectional overrides) into `\uXXXX`, which is still a JSON escape, so the value
 * reads back with `JSON.parse`. A value comes from a peer or a server's error message: untrusted.
 */
export function logValue(value: string | number | boolean, escape: (text: string) => string): string {
  const text = String(value);
  return BARE.test(text) ? text : escape(JSON.stringify(text));
}

/**
 * One line of the serve's log (without its newline): `pcodx-serve event=<event> key=value …`,
 * each value as {@link logValue} writes it.
 */
export function serveLogLine(event: string, fields: Readonly<Record<string, string | number | boolean>>, escape: (text: string) => string): string {
  return [`pcodx-serve event=${logValue(event, escape)}`, ...Object.entries(fields).map(([k, v]) => `${k}=${logValue(v, escape)}`)].join(' ');
}

/**
 * The serve's log: one {@link serveLogLine} per event on stderr, escaped through `escape` (the
 * host's terminal escaping; without one, a host that lends none, only JSON's own escapes).
 */
export function serveLog(escape: (text: string) => string = (text) => text): ServeLog {
  return (event, fields = {}) => void process.stderr.write(`${serveLogLine(event, fields, escape)}\n`);
}

/** Quotes a word for a POSIX shell (single quotes; a quote inside becomes '\\''). */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The exact command a user runs to reach this serve with the Codex TUI (`codex exec` takes the same
 * flags). On TCP the token travels in {@link SERVE_TOKEN_ENV}: read from the owner-only token file
 * when the serve made the token, else already in the user's environment. The token itself is
 * never printed.
 */
export function connectCommand(running: Pick<RunningServe, 'listenUrl' | 'tokenFile' | 'clientHeaders'>): string {
  const remote = `codex --remote ${shellWord(running.listenUrl)}`;
  if (!running.clientHeaders.authorization) return remote;
  const auth = `--remote-auth-token-env ${SERVE_TOKEN_ENV}`;
  if (running.tokenFile) return `${SERVE_TOKEN_ENV}="$(cat ${shellWord(running.tokenFile)})" ${remote} ${auth}`;
  return `${remote} ${auth}`;
}

/** Options of `pcodx serve` that come from flags; the rest is filled in here. */
export type ServeFlags = Omit<ServeOptions, 'pcodx' | 'fixtureDir' | 'listenToken' | 'writeTokenFile' | 'upstreamToken' | 'runtimeDir'> & {
  /** `--upstream-auth-token-env VAR`: the variable holding the token of an app-server the user started. */
  readonly upstreamTokenEnv?: string;
  /**
   * The host's terminal escaping for the banner when stdout is a terminal (`session_id=` names a
   * session anyone writing the ledger may have named, with a bidirectional override or a C1 control
   * in it); absent, the banner is printed as it is (piped, it is data).
   */
  readonly bannerEscape?: (text: string) => string;
};

/**
 * `cordon pcodx serve`: cleans up after earlier serves, starts the proxy, prints the `key=value`
 * banner on stdout (ending with `connect=`, the exact `codex --remote …` line), runs until SIGINT,
 * SIGTERM or SIGHUP (a closed terminal), then stops everything it started. If the app-server it
 * started ends first, the serve stops and fails: nothing is relayed to whatever takes its place.
 * With `pcodx`, the serve is bound to one session for its whole life (`--session`, else the
 * last-written one, else a new one).
 */
export async function runServe(options: ServeFlags, pcodx: { ledger: LedgerHandle; session?: string; cwd?: string } | undefined): Promise<void> {
  let session: SessionState | undefined;
  if (pcodx) {
    const resolved = await pcodx.ledger.resolveSession({ id: pcodx.session, mode: 'create', cwd: pcodx.cwd && resolve(pcodx.cwd) });
    session = new SessionState(resolved.id);
  }
  // Handlers go in before anything starts: a signal that arrives while starting (or right after the
  // banner) still stops the serve cleanly instead of killing it with the default action. `on`, not
  // `once`, so a library's own handler never finds itself alone and re-raises the signal.
  const signalled = new Promise<{ signal: NodeJS.Signals; upstream?: undefined }>((resolvePromise) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => resolvePromise({ signal }));
  });
  const liveContextDir = process.env.PCODX_LIVE_CONTEXT_DIR || undefined;
  // A closed terminal makes writes fail (EIO/EPIPE): the serve must still stop what it started.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  let running: RunningServe;
  try {
    // An audit directory others could read or plant files in is refused before anything starts.
    if (pcodx && liveContextDir) privateDir(liveContextDir, { what: 'PCODX_LIVE_CONTEXT_DIR', elsewhere: 'set PCODX_LIVE_CONTEXT_DIR to another directory' });
    const listenToken = process.env[SERVE_TOKEN_ENV] || undefined;
    if (listenToken !== undefined && listenToken.length < MIN_TOKEN_LENGTH) throw new Error(`${SERVE_TOKEN_ENV} must hold at least ${MIN_TOKEN_LENGTH} characters`);
    let upstreamToken: string | undefined;
    if (options.upstreamTokenEnv !== undefined) {
      upstreamToken = process.env[options.upstreamTokenEnv] || undefined;
      if (upstreamToken === undefined) throw new Error(`--upstream-auth-token-env ${options.upstreamTokenEnv}: that environment variable is not set`);
    }
    running = await startServe({
      ...options,
      listenToken,
      writeTokenFile: true,
      upstreamToken,
      runtimeDir: runtimeRoot(process.env),
      fixtureDir: process.env.PCODX_WS_FIXTURE_DIR || undefined,
      pcodx: pcodx && session ? { ledger: pcodx.ledger, session, liveContextDir } : undefined,
    });
  } catch (error) {
    // Refused addresses and an app-server that cannot start are the user's to fix: `error: …`, exit 1.
    throw new PcodxRuntimeError((error as Error).message, { cause: error });
  }
  const out = [`listen=${running.listenUrl}`, `upstream=${running.upstreamUrl}`];
  if (running.upstreamPid !== undefined) out.push(`upstream_pid=${running.upstreamPid}`);
  if (running.tokenFile) out.push(`token_file=${running.tokenFile}`);
  if (running.clientHeaders.authorization) out.push(`token_env=${SERVE_TOKEN_ENV}`);
  out.push(`connect=${connectCommand(running)}`);
  out.push(`pcodx_tools=${pcodx ? 'enabled' : 'disabled'}`);
  if (session) out.push(`session_id=${session.sessionId}`);
  const shown = options.bannerEscape ?? ((text: string) => text);
  process.stdout.write(`${out.map(shown).join('\n')}\n`);
  const why = await Promise.race([signalled, running.upstreamEnded.then((how) => ({ upstream: how, signal: undefined }))]);
  await running.close();
  if (why.upstream !== undefined) {
    options.log('upstream_exited', { how: why.upstream });
    throw new PcodxRuntimeError(`the app-server this serve started (pid ${running.upstreamPid}) exited (${why.upstream}); the serve stopped rather than relay to anything else`);
  }
  options.log('stopped', { signal: why.signal ?? 'none' });
}
