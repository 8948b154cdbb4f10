import { wellFormed } from '@cordon/plugin-api';
import type { ReducedSession } from '../reduce-session.js';

/** NUL, or a lone surrogate: what a PostgreSQL `text` value cannot hold (UTF-8 without 0x00). */
const UNSTORABLE = /[\u0000\ud800-\udfff]/;

/**
 * A string an agent wrote (a command, a tool name, a call key) as both stores can hold it:
 * PostgreSQL's `text` refuses NUL ("invalid byte sequence for encoding UTF8: 0x00") and lone
 * surrogates are not UTF-8, so each becomes U+FFFD; everything else is kept as sent (controls
 * are escaped where text is printed, output/terminal.ts). SQLite gets the same rows.
 */
export function storedText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return UNSTORABLE.test(text) ? wellFormed(text).replace(/\u0000/g, '\ufffd') : text;
}

/** Every string field of `row` through {@link storedText}; the same object when none needed it. */
function storedRow<T extends object>(row: T): T {
  let out: T | undefined;
  for (const [key, value] of Object.entries(row)) {
    if (typeof value !== 'string') continue;
    const clean = storedText(value);
    if (clean !== value) (out ??= { ...row } as T)[key as keyof T] = clean as T[keyof T];
  }
  return out ?? row;
}

/**
 * `reduced` with every string of its summary and calls storable ({@link storedText}): the one
 * place both stores (store.ts for kysely, sqlite-store.ts) make rows safe to write.
 */
export function storableSession(reduced: ReducedSession): ReducedSession {
  return { ...reduced, summary: storedRow(reduced.summary), calls: reduced.calls.map(storedRow) };
}
