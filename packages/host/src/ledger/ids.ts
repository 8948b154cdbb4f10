import { refused } from './errors.js';

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

/** Throws the ledger's refusal for a session name {@link isValidSessionName} rejects. */
export function checkSessionName(name: string): void {
  if (!isValidSessionName(name)) throw refused(`session name ${JSON.stringify(name)} is not valid: use 1-200 characters without control characters`, { sessionId: name });
}
