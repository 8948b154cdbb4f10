/**
 * What a terminal does not show as itself, and the one-line escape for it: the host's terminal
 * output (`packages/host/src/output/terminal.ts`, lent to plugins as `api.services.terminal`) and
 * plugins printing without the host's api (a shell shim, an exporter's error line) share this
 * rule. Terminals act on control characters: ESC starts sequences that write the clipboard
 * (OSC 52), set the window title or move the cursor (ECMA-48 §5, xterm's "Control Sequences");
 * C1 controls do the same in 8-bit mode; bidirectional overrides reorder what is shown (Unicode
 * TR #9, CVE-2021-42574).
 */

/**
 * The characters a terminal does not show as themselves, as a regular expression source (flag
 * `u`): controls (C0, DEL, C1), format characters (a byte order mark, zero-width joiners, the
 * bidirectional overrides and isolates, the tag characters), line and paragraph separators,
 * lone surrogates, and every space but U+0020 (a no-break space looks like one; a tab too).
 */
export const UNSHOWN_SOURCE = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]|[^\S ]`;

/** `c`'s UTF-16 code units as `\uXXXX` escapes (two for a character outside the BMP). */
export function escapeUnits(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** Printable ASCII only: {@link UNSHOWN_SOURCE} matches nothing there, so no expression is built. */
const PLAIN = /^[\x20-\x7e]*$/;

/** Built on first use: parsing its Unicode property classes costs about 0.1 ms. */
let unshownAll: RegExp | undefined;

/**
 * `text` as one line safe to print on a terminal: every character of {@link UNSHOWN_SOURCE} (a
 * line break and a tab too) becomes its `\uXXXX` escapes ({@link escapeUnits}); everything else
 * is kept, so `x\x1b]52;c;…\x07` prints as `x\u001b]52;c;…\u0007`.
 */
export function shownLine(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.replace((unshownAll ??= new RegExp(UNSHOWN_SOURCE, 'gu')), escapeUnits);
}
