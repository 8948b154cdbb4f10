import { sortedJson } from '../../util/sorted-json.js';

/**
 * Canonical JSON for `.cordon/` files (the BEKO2210/SkillQuarry cordon): object keys sorted by
 * code unit, no whitespace, every character outside printable ASCII written as a `\uXXXX`
 * escape (lone surrogates from non-UTF-8 path bytes included), one trailing newline. Equal
 * values give equal bytes, so hashes of these files are stable.
 */
export function canonicalJson(value: unknown): string {
  return `${canonicalBody(value)}\n`;
}

/** {@link canonicalJson} without the trailing newline (what `config_sha256` hashes). Throws a TypeError for a non-finite number. */
export function canonicalBody(value: unknown): string {
  return escapeNonAscii(sortedJson(value, { nonFinite: 'throw' }) ?? 'null');
}

function escapeNonAscii(json: string): string {
  // eslint-disable-next-line no-control-regex
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
