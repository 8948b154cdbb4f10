import { CordonError, ERROR_CODES } from '../errors/index.js';
import { MASK, maskedUserinfo } from './mask.js';
import { SECRET_PARAM_NAMES } from './redact.js';

/**
 * The one way cordon prints a URL (a `--db postgres://…` store, an `--otlp` collector): with its
 * credentials redacted. Secrets never reach a terminal, a log or a report.
 */

/** Query parameters that carry a credential ({@link SECRET_PARAM_NAMES}). */
const SECRET_PARAMS = new RegExp(`^(?:${SECRET_PARAM_NAMES})$`, 'i');

/**
 * `url`'s user information, if any, as {@link maskedUserinfo} shows it (`https://***@host`), in
 * place. URL keeps a user name and a password apart; the mask goes in the user name's place.
 */
function maskUrlUserinfo(u: URL): void {
  if (u.username === '' && u.password === '') return;
  const masked = maskedUserinfo(`${u.username}:${u.password}`);
  u.password = '';
  u.username = masked;
}

/**
 * `url` with its user information (user name and password alike: {@link maskedUserinfo}) and
 * every {@link SECRET_PARAMS} query parameter replaced by `***`. A string that does not parse as a
 * URL is shown as typed except a user-info part (before an `@`) and a query, where it may hold a
 * secret.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    maskUrlUserinfo(u);
    for (const key of [...u.searchParams.keys()]) if (SECRET_PARAMS.test(key)) u.searchParams.set(key, MASK);
    return u.toString();
  } catch {
    // Unparsable (a scheme left out: `127.0.0.1:4318`): shown as typed, except the parts URL syntax
    // gives credentials, a user-info part before an `@` and a query.
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
    const rest = url.slice(scheme.length);
    const at = rest.lastIndexOf('@');
    return `${scheme}${at >= 0 ? `${maskedUserinfo(rest.slice(0, at))}${rest.slice(at)}` : rest}`.replace(/\?[\s\S]*$/, '?…');
  }
}

/**
 * An endpoint cordon sends to (`--otlp`), shown with no credential at all: {@link redactUrl}, and
 * besides every query value, whatever its name, as `***`.
 */
export function redactEndpoint(url: string): string {
  try {
    const u = new URL(url);
    maskUrlUserinfo(u);
    for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, MASK);
    return u.toString();
  } catch {
    return redactUrl(url);
  }
}

/**
 * An endpoint as the user typed it (`--otlp ftp://x` stays `ftp://x`, not URL's re-serialised
 * `ftp://x/`), with what {@link redactEndpoint} hides hidden in that text: a user-info part
 * (`***@`, {@link maskedUserinfo}) and every query value (`?key=***`). What is shown is what was typed, so the user can find it on their command line.
 */
export function shownEndpoint(text: string): string {
  // `scheme://`, or what stands for it in a malformed one (`http:/`, `//`, `http:`), shown as
  // typed; `user:` before a password is no scheme.
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? /^(?:https?:|[a-z][a-z0-9+.-]*:(?=\/))?\/*/i.exec(text)![0];
  const rest = text.slice(scheme.length);
  let authorityEnd = rest.search(/[/?#]/);
  // A password may hold a `/` (`http://u:p/w@h`, which does not parse), and a malformed URL
  // (`http:/u:p@h`, `//u:p@h`) has no authority to speak of: whatever stands before the last `@`
  // ahead of a query is hidden (a path hidden with it, where one holds an `@`, is the lesser harm).
  const queryAt = rest.search(/[?#]/);
  const lastAt = (queryAt < 0 ? rest : rest.slice(0, queryAt)).lastIndexOf('@');
  if (lastAt >= 0) {
    const end = rest.slice(lastAt).search(/[/?#]/);
    authorityEnd = end < 0 ? -1 : lastAt + end;
  }
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const after = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  let shown = authority;
  if (at >= 0) shown = `${maskedUserinfo(authority.slice(0, at))}${authority.slice(at)}`;
  // Every query value, up to a fragment.
  const path = after.replace(/\?([^#]*)/, (_, query: string) => `?${query.split('&').map((pair) => (pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=***` : pair)).join('&')}`);
  return `${scheme}${shown}${path}`;
}

/**
 * {@link redactSecrets} for an endpoint ({@link redactEndpoint}): besides, a user name standing
 * alone and every query value are removed from `text` wherever they appear.
 */
export function redactEndpointSecrets(text: string, url: string): string {
  let out = redactSecrets(text.split(url).join(redactEndpoint(url)), url);
  try {
    const u = new URL(url);
    const lone = u.password ? [] : [u.username, safeDecode(u.username)];
    for (const secret of new Set([...lone, ...[...u.searchParams.values()]])) if (secret.length >= 3) out = out.split(secret).join('***');
  } catch {
    // Not a URL: redactSecrets did what can be done.
  }
  return out;
}

/**
 * `text` (an error from a driver or an HTTP client, which may echo what it was given) with every
 * occurrence of `url` redacted ({@link redactUrl}) and its password removed wherever it appears,
 * plain or percent-encoded.
 */
export function redactSecrets(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  try {
    const u = new URL(url);
    for (const secret of new Set([u.password, safeDecode(u.password), ...[...u.searchParams].filter(([k]) => SECRET_PARAMS.test(k)).map(([, v]) => v)])) {
      if (secret.length >= 3) out = out.split(secret).join('***');
    }
  } catch {
    // Not a URL: nothing more to hide.
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * An `http://` or `https://` base URL given on the command line (`--otlp`), checked before
 * anything uses it (WHATWG URL Standard parsing): it must parse, name a host, and carry no query
 * or fragment (paths are appended to it). Trailing slashes are dropped. `http://` alone, which a
 * naive `${url}/v1/traces` would send to a host named `v1`, is refused.
 * @throws CordonError `CORDON_BAD_INPUT` (exit 2) naming the flag and the URL as {@link redactEndpoint} shows it.
 */
export function parseBaseUrl(text: string, flag: string): URL {
  // As typed (not URL's re-serialised form), its credentials hidden.
  const shown = `${flag} ${JSON.stringify(shownEndpoint(text))}`;
  const bad = (why: string) => new CordonError(ERROR_CODES.BAD_INPUT, `${shown}: ${why}`, { details: { flag, url: shownEndpoint(text) } });
  if (!/^https?:\/\//i.test(text)) throw bad('expected an http:// or https:// URL');
  const rest = text.replace(/^https?:\/\//i, '');
  // WHATWG parsing skips extra slashes (`http:///v1` is host v1): the host must come right after `//`.
  if (rest === '' || /^[/\\?#@]/.test(rest)) throw bad('names no host');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad('not a valid URL');
  }
  if (url.hostname === '') throw bad('names no host');
  if (url.search || url.hash || text.includes('#')) throw bad('a base URL takes no query or fragment (cordon appends /v1/traces and /v1/metrics)');
  // Credentials go as Basic authentication, percent-decoded (RFC 3986 3.2.1): a `%` must start an escape.
  for (const [part, value] of [['user name', url.username], ['password', url.password]] as const) {
    try {
      decodeURIComponent(value);
    } catch {
      throw bad(`its ${part} holds a % that starts no escape (write a literal % as %25)`);
    }
  }
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}
