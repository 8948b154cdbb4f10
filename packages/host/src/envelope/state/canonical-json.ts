/**
 * Canonical JSON for `.cordon/` files (the BEKO2210/SkillQuarry cordon): object keys sorted by
 * code unit, no whitespace, every character outside printable ASCII written as a `\uXXXX`
 * escape (lone surrogates from non-UTF-8 path bytes included), one trailing newline. Equal
 * values give equal bytes, so hashes of these files are stable.
 */
export function canonicalJson(value: unknown): string {
  return `${canonicalBody(value)}\n`;
}

/** {@link canonicalJson} without the trailing newline (what `config_sha256` hashes). */
export function canonicalBody(value: unknown): string {
  return escapeNonAscii(JSON.stringify(sortKeys(value)));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    // An array of strings (an audit's changed_files: one per changed path) is written as it is.
    let i = 0;
    while (i < value.length && typeof value[i] === 'string') i++;
    return i === value.length ? value : value.map(sortKeys);
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`canonical JSON cannot hold ${value}`);
  return value;
}

function escapeNonAscii(json: string): string {
  // eslint-disable-next-line no-control-regex
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
