import stringWidth from 'string-width';

/**
 * Terminal columns: what `cordon top` lays out is measured in the columns a terminal gives each
 * character (East Asian wide characters take two, combining marks none: `string-width`, after
 * Unicode UAX #11), never in JavaScript string length, so a row never wraps.
 */

/** The columns `text` takes (text already escaped: no control characters). */
export function columns(text: string): number {
  return stringWidth(text);
}

/** `text` cut to at most `width` columns, with `…` in place of what was left out. */
export function cutColumns(text: string, width: number): string {
  if (width <= 0) return '';
  if (columns(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = stringWidth(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

/** `text` cut to `width` columns and padded with spaces to exactly `width` (left-aligned). */
export function padColumns(text: string, width: number): string {
  const cut = cutColumns(text, width);
  return cut + ' '.repeat(Math.max(0, width - columns(cut)));
}

/** `text` cut to `width` columns and padded on the left to exactly `width` (right-aligned: numbers). */
export function padColumnsStart(text: string, width: number): string {
  const cut = cutColumns(text, width);
  return ' '.repeat(Math.max(0, width - columns(cut))) + cut;
}
