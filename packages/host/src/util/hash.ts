import { sha256 } from '@noble/hashes/sha2.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { nodeCrypto } from './builtins.js';

/**
 * Inputs up to this many bytes are hashed in JavaScript (@noble/hashes) instead of by
 * `node:crypto`, whose first load costs about 4–5 ms of CPU: more than `cordon check` spends
 * on everything after its git commands at 20 files (docs/ARCHITECTURE.md "Where the time goes").
 * The envelope's `config.json`, `snapshot.json` and `info/exclude` are far below it. Larger
 * inputs go to `node:crypto`: `check` runs without V8's optimising compiler, where @noble's
 * SHA-256 manages about 1.5 MB/s (2.7 ms for 4 KiB).
 */
export const SCRIPT_HASH_MAX_BYTES = 2048;

/**
 * SHA-256 (FIPS 180-4) of `data` (a string is hashed as its UTF-8 bytes) as 64 lowercase hex
 * digits. The same digest whichever implementation runs (tested against `node:crypto`).
 */
export function sha256Hex(data: string | Uint8Array): string {
  return digestHex('sha256', data);
}

/** SHA-1 (FIPS 180-4) of `data` as 40 lowercase hex digits; for content keys only, never for security. */
export function sha1Hex(data: string | Uint8Array): string {
  return digestHex('sha1', data);
}

function digestHex(algorithm: 'sha256' | 'sha1', data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (bytes.byteLength > SCRIPT_HASH_MAX_BYTES) return nodeCrypto().createHash(algorithm).update(bytes).digest('hex');
  return bytesToHex(algorithm === 'sha256' ? sha256(bytes) : sha1(bytes));
}
