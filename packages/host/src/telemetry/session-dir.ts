import { join } from 'node:path';
import { wellFormed } from '@cordon/plugin-api';
import { sha256Hex } from '../util/hash.js';

/** Directory under the data dir that holds one directory per agent session (uncoalesced/cordon). */
export const RUNS_DIR = 'runs';

/** Name used when a payload carries no usable session id (the reference's `unknown-session`). */
export const UNKNOWN_SESSION = 'unknown-session';

/** Longest directory name {@link sanitizeSessionId} returns, in characters (well under NAME_MAX = 255 bytes). */
export const MAX_SESSION_DIR_LENGTH = 96;

const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Turns an agent's session id into a safe, stable directory name (docs/ARCHITECTURE.md "Data": ids from
 * payloads are sanitised before they name anything on disk).
 *
 * - An id made only of `[A-Za-z0-9._-]`, starting with a letter or digit, at most
 *   {@link MAX_SESSION_DIR_LENGTH} characters, is kept as is (every real id seen: UUIDs,
 *   Hermes' `sess_…`, the Claude Code hooks reference).
 * - Anything else (`/`, `..`, NUL, newlines as in Cursor ids, over-long ids) has every unsafe
 *   character replaced by `_`, is cut to 80 characters and gets `-<12 hex of sha256(id)>`
 *   appended (of the id's JSON form when it holds a lone surrogate, which UTF-8 cannot), so two
 *   different raw ids never share a directory and `../x` cannot escape.
 * - A missing, empty or non-string id gives {@link UNKNOWN_SESSION}.
 */
export function sanitizeSessionId(raw: unknown): string {
  if (typeof raw !== 'string' || raw === '') return UNKNOWN_SESSION;
  if (raw.length <= MAX_SESSION_DIR_LENGTH && SAFE.test(raw)) return raw;
  const cleaned = raw.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[._-]+/, '').slice(0, 80);
  // Hashed as UTF-8, which turns every lone surrogate into U+FFFD: an id holding one is hashed in
  // its JSON form instead, so `a\ud800` and `a\ud801` stay two sessions (well-formed ids as before).
  const digest = sha256Hex(wellFormed(raw) === raw ? raw : JSON.stringify(raw)).slice(0, 12);
  return `${cleaned || 'session'}-${digest}`;
}

/** The rule {@link sessionNameProblem} holds a name to, in the words its refusals use. */
export const PLAIN_SESSION_NAME_RULE = `letters, digits, '.', '_' and '-', starting with a letter or digit, at most ${MAX_SESSION_DIR_LENGTH} characters`;

/**
 * Why `name`, given by a user to name a new session (`cordon wrap --session`), cannot be one, or
 * undefined when it can: it must be a name {@link sanitizeSessionId} keeps as is, so the session's
 * directory, `reduce --session` and the markers all say the same name (`../evil` would be stored
 * as `evil-<hash>`). An agent's own ids are not held to it; they are sanitised.
 */
export function sessionNameProblem(name: string): string | undefined {
  if (name.length <= MAX_SESSION_DIR_LENGTH && SAFE.test(name)) return undefined;
  return `not a plain session name: use ${PLAIN_SESSION_NAME_RULE}`;
}

/** `<dataDir>/runs/<sanitised session id>`: where a session's markers, samples and reductions live. */
export function sessionDir(dataDir: string, sessionId: unknown): string {
  return join(dataDir, RUNS_DIR, sanitizeSessionId(sessionId));
}
