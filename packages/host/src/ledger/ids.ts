import { CordonError, ERROR_CODES } from '../errors/index.js';

/** Message ids are `msg<seq>`, compaction ids `cmp<seq>` (the Rust pcodx, SichangHe/partial_compact_codex). */
export const messageId = (seq: number): string => `msg${seq}`;

/** See {@link messageId}. */
export const compactionId = (seq: number): string => `cmp${seq}`;

/** A new session name: `ses<hex ms>-<pid>` (the Rust pcodx, SichangHe/partial_compact_codex). */
export function generateSessionId(nowMs: number = Date.now(), pid: number = process.pid): string {
  return `ses${nowMs.toString(16)}-${pid}`;
}

/** Session names are 1–200 characters without control characters (they appear in `key=value` output). */
export function isValidSessionName(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name.length > 0 && name.length <= 200 && !/[\u0000-\u001f\u007f]/.test(name);
}

/**
 * Refuses a session name {@link isValidSessionName} rejects as a usage error (`CORDON_BAD_INPUT`,
 * exit 2) naming `--session`, the one way a session name reaches the ledger from outside: a name
 * that cannot be one is the user's mistake, unlike an unknown session (`CORDON_LEDGER_REFUSED`, exit 1).
 */
export function checkSessionName(name: string): void {
  if (!isValidSessionName(name)) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `--session ${JSON.stringify(name)}: not a valid session name: use 1-200 characters without control characters`, { details: { flag: '--session', session_id: name } });
  }
}
