import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { sha1Hex } from '../util/hash.js';
import { canonicalJson } from './summary.js';

/**
 * The content hash that stands in for a call id when the agent sends none (Gemini): the first
 * 16 hex characters of SHA-1 over `session NUL tool NUL sorted-key JSON of input`
 * (uncoalesced/cordon). Pre and post events of one call hash equally.
 * `input` is the value as sent: an object, or a string, array or `null` (each serialises
 * differently from any object); a missing input hashes as the text `absent`.
 */
export function inputHash(sessionId: string, toolName: string, input: unknown): string {
  const text = input === undefined ? 'absent' : canonicalJson(input);
  return sha1Hex(`${sessionId}\0${toolName}\0${text}`).slice(0, 16);
}

/** What a native tool event's call key hashes: the input as sent when it was not an object, else the object. */
export function keyedInput(event: { readonly toolInput: Readonly<Record<string, unknown>>; readonly rawToolInput?: unknown }): unknown {
  return 'rawToolInput' in event ? event.rawToolInput : event.toolInput;
}

/** Sub-directory of a session directory that holds the first-in-first-out pairing slots. */
export const PAIRING_DIR = 'pairing';

/** Upper bound on slots probed for one hash; past it the ordinal is reported as this value. */
const MAX_ORDINAL = 100_000;

/**
 * Claims the next first-in-first-out ordinal of `hash` for `phase`, race-free across concurrent
 * hook processes: slot `n` is the file `<sessionDir>/pairing/<hash>.<phase>.<n>` created with
 * `O_EXCL`, and the first `n` whose creation succeeds is this call's. The n-th start of a
 * (session, tool, input) triple thereby pairs with its n-th end (the agent hook docs; docs/references.md, canonical names).
 */
export function claimOrdinal(sessionDir: string, hash: string, phase: 'start' | 'end'): number {
  const dir = join(sessionDir, PAIRING_DIR);
  mkdirSync(dir, { recursive: true });
  for (let n = 0; n < MAX_ORDINAL; n++) {
    try {
      closeSync(openSync(join(dir, `${hash}.${phase}.${n}`), 'wx'));
      return n;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return MAX_ORDINAL;
}

/** The call key for a hash and ordinal: `h:<hash>.<n>`. */
export function hashCallKey(hash: string, ordinal: number): string {
  return `h:${hash}.${ordinal}`;
}
