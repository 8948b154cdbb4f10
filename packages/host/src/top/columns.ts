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

let graphemes: Intl.Segmenter | undefined;

/**
 * `text` cut to at most `width` columns, with `…` in place of what was left out. Cut between
 * grapheme clusters (UAX #29), each measured whole: a character's width can depend on what
 * follows it (U+2764 is one column, U+2764 U+FE0F two), and a flag or a skin-toned emoji is not
 * split.
 */
export function cutColumns(text: string, width: number): string {
  if (width <= 0) return '';
  if (columns(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of (graphemes ??= new Intl.Segmenter()).segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${withoutCutEscape(text, out)}…`;
}

/**
 * `kept` (the start of `text`) without the beginning of a `\uXXXX` escape the cut went through:
 * the text is escaped already (output/terminal.ts), and half an escape (`\u001`) reads as
 * something else.
 */
function withoutCutEscape(text: string, kept: string): string {
  const at = kept.lastIndexOf('\\', kept.length - 1);
  if (at < 0 || at < kept.length - 5) return kept;
  return /^\\u[0-9a-f]{4}/i.test(text.slice(at, at + 6)) && kept.length < at + 6 ? kept.slice(0, at) : kept;
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
