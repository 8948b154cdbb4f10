import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The environment variable that carries the serve's capability token to a Codex client
 * (`codex --remote ws://… --remote-auth-token-env PCODX_SERVE_TOKEN`), and from which the serve
 * takes a token the user chose. The token itself is never printed, logged or put in argv.
 */
export const SERVE_TOKEN_ENV = 'PCODX_SERVE_TOKEN';

/** The shortest token the serve accepts from {@link SERVE_TOKEN_ENV} (a generated one has 43 characters). */
export const MIN_TOKEN_LENGTH = 32;

/** A new capability token: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Hex SHA-256 of a token: what `codex app-server --ws-token-sha256` takes, so argv never holds the token. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * True when an `Authorization` header is exactly `Bearer <token>` (the form Codex's
 * `--remote-auth-token-env` sends). Compares digests in constant time, so neither the token's
 * length nor its prefix leaks through timing.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return false;
  const given = createHash('sha256').update(header.slice('Bearer '.length), 'utf8').digest();
  const expected = createHash('sha256').update(token, 'utf8').digest();
  return timingSafeEqual(given, expected);
}
