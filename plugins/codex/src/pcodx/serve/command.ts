import type { LedgerHandle } from '@cordon/plugin-api';
import { resolve } from 'node:path';
import { privateDir } from './capture.js';
import { SessionState } from './threads.js';
import { startServe, type ServeOptions } from './serve.js';
import type { ServeLog } from './relay.js';
import { PcodxRuntimeError } from '../errors.js';

/** A log value as it goes into a `key=value` line: bare when it has no space, quote or `=`, else JSON-quoted. */
function logValue(value: string | number | boolean): string {
  const text = String(value);
  return /^[^\s"=]*$/.test(text) && text !== '' ? text : JSON.stringify(text);
}

/** The serve's log: one `pcodx-serve event=<event> key=value …` line per event on stderr. */
export const serveLog: ServeLog = (event, fields = {}) => {
  const parts = [`pcodx-serve event=${event}`, ...Object.entries(fields).map(([k, v]) => `${k}=${logValue(v)}`)];
  process.stderr.write(`${parts.join(' ')}\n`);
};

/**
 * `cordon pcodx serve`: starts the proxy, prints the `key=value` banner on stdout, runs until
 * SIGINT or SIGTERM, then stops everything it started. With `pcodx`, the serve is bound to one
 * session for its whole life (`--session`, else the last-written one, else a new one).
 */
export async function runServe(options: Omit<ServeOptions, 'pcodx' | 'fixtureDir'>, pcodx: { ledger: LedgerHandle; session?: string; cwd?: string } | undefined): Promise<void> {
  let session: SessionState | undefined;
  if (pcodx) {
    const resolved = await pcodx.ledger.resolveSession({ id: pcodx.session, mode: 'create', cwd: pcodx.cwd && resolve(pcodx.cwd) });
    session = new SessionState(resolved.id);
  }
  const liveContextDir = process.env.PCODX_LIVE_CONTEXT_DIR || undefined;
  let running;
  try {
    // An audit directory others could read or plant files in is refused before anything starts.
    if (pcodx && liveContextDir) privateDir(liveContextDir);
    running = await startServe({
      ...options,
      fixtureDir: process.env.PCODX_WS_FIXTURE_DIR || undefined,
      pcodx: pcodx && session ? { ledger: pcodx.ledger, session, liveContextDir } : undefined,
    });
  } catch (error) {
    // Refused addresses and an app-server that cannot start are the user's to fix: `error: …`, exit 1.
    throw new PcodxRuntimeError((error as Error).message, { cause: error });
  }
  const out = [`listen=${running.listenUrl}`, `upstream=${running.upstreamUrl}`];
  if (running.upstreamPid !== undefined) out.push(`upstream_pid=${running.upstreamPid}`);
  out.push(`pcodx_tools=${pcodx ? 'enabled' : 'disabled'}`);
  if (session) out.push(`session_id=${session.sessionId}`);
  process.stdout.write(`${out.join('\n')}\n`);
  await new Promise<void>((resolvePromise) => {
    const stop = () => resolvePromise();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await running.close();
  options.log('stopped');
}
