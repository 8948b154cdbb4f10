/** What a secret is replaced with (`redact.ts`, `redact-programs.ts`). */
export const MASK = '***';

/**
 * A URL's user information (RFC 3986 §3.2.1: `user` or `user:password`, before the `@`) as cordon
 * shows it wherever it shows one (a printed URL, an export endpoint, a recorded command): all of
 * it as `***`, the user name with the password, so `https://alice:pw@h` shows as `https://***@h`
 * as `https://TOKEN@h` does (a user name may itself be the credential: a token given as the user,
 * sent as Basic authentication). Empty stays empty. The one form: `url.ts` and `redact.ts` use it.
 */
export function maskedUserinfo(userinfo: string): string {
  return userinfo === '' ? '' : MASK;
}
