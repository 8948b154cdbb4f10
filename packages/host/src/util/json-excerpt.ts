/**
 * V8's `JSON.parse` error messages quote the text they failed on: `Unexpected token 'g',
 * "ghp_DDDDDD"... is not valid JSON` (up to about twenty characters around the bad one, cut with
 * `...`; the same form on Node 20, 22 and 24). Where that text is someone else's (a hook payload,
 * an agent's transcript line, a peer's frame), the excerpt can be the start of a secret, too short
 * for redaction (output/redact.ts) to recognise a token's shape. The log writes every message and
 * string field through {@link withoutJsonExcerpts}, so no caller has to remember it.
 */

/**
 * One quoted excerpt: after `Unexpected token 'c', ` (group 1), or on its own (`"undefined" is not
 * valid JSON`, what V8 says of a value that is not a string). Greedy within a bound longer than
 * any excerpt V8 writes, so an excerpt that itself holds `" is not valid JSON` is cut whole.
 */
const EXCERPT = /(Unexpected token '[\s\S]{1,2}'), (?:\.\.\.)?"[\s\S]{0,48}"(?:\.\.\.)? is not valid JSON|(?:\.\.\.)?"[\s\S]{0,48}"(?:\.\.\.)? is not valid JSON/g;

/**
 * `text` with every excerpt of input a V8 `JSON.parse` message quotes left out: `Unexpected token
 * 'g', "ghp_DDDDDD"... is not valid JSON` becomes `Unexpected token 'g' (the input is not quoted);
 * not valid JSON`, and `"undefined" is not valid JSON` becomes `not valid JSON (the input is not
 * quoted)`, wherever they stand in `text`. Messages that quote nothing (`Unterminated string in
 * JSON at position 3`) and any other text are returned as they are.
 */
export function withoutJsonExcerpts(text: string): string {
  if (!text.includes(' is not valid JSON')) return text;
  return text.replace(EXCERPT, (_match, token: string | undefined) => (token !== undefined ? `${token} (the input is not quoted); not valid JSON` : 'not valid JSON (the input is not quoted)'));
}
