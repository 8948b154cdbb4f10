import { wellFormed } from '@cordon/plugin-api';
import { terminalText } from './terminal.js';

/**
 * The characters that start Markdown inline syntax anywhere in a line (CommonMark 0.31): `\`
 * (escapes), `` ` `` (code spans), `*` `_` (emphasis), `[` `]` (links, images after `!`), `<`
 * `>` (autolinks, raw HTML such as `<img src=x onerror=…>`), `&` (entity references), and the
 * GitHub Flavored Markdown additions: `|` (table cells), `~` (strikethrough), `$` (math), `@`
 * (mentions in comments), `#` (issue references). Each may be backslash-escaped (CommonMark
 * §2.4: any ASCII punctuation) and then shows as itself.
 */
const INLINE = /[\\`*_[\]<>&|~$@#!]/g;

/** What starts a block at the beginning of a line: a list item, a heading underline, a numbered item. */
const LINE_START = /^(\s*)([-+=]|\d+(?=[.)]))/;

/**
 * Untrusted text as literal Markdown text on one line: every {@link INLINE} character escaped, a
 * list or heading marker at its start escaped, so no emphasis, link, code span, heading, raw
 * HTML or mention can start. Line breaks and other controls become `\uXXXX`
 * ({@link terminalText}: a report is also read in terminals and editors), so a table cell or a
 * line stays one line; lone surrogates become U+FFFD. The HTML report escapes for HTML instead.
 */
export function markdownText(text: string): string {
  return markdownCell(text).replace(LINE_START, (_all, space: string, marker: string) => (/\d/.test(marker) ? `${space}${marker}\\` : `${space}\\${marker}`));
}

/**
 * A GitHub Flavored Markdown table cell (GFM §4.10): every {@link INLINE} character escaped (`|`
 * among them, so a cell cannot be split), controls and line breaks as `\uXXXX` so the cell stays
 * on one line. A cell never starts a line, so list and heading markers need no escape.
 */
export function markdownCell(text: string): string {
  return terminalText(wellFormed(text)).replace(INLINE, (c) => `\\${c}`);
}
