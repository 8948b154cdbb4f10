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
 * lone surrogates, every space but U+0020 (a no-break space looks like one; a tab too),
 * unassigned code points (`Cn`: a terminal shows nothing, a box or a question mark, in 0, 1 or 2
 * columns as its own tables say; tmux gives U+0378 none where string-width counts one), and the
 * letters and marks Unicode makes Default_Ignorable_Code_Point (DerivedCoreProperties.txt: the
 * Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining grapheme joiner U+034F, the Khmer
 * inherent vowels U+17B4 and U+17B5), which are meant to be invisible yet take columns in some
 * terminals (tmux draws U+3164 two wide, blank; string-width counts none), so a name of them
 * shows as nothing and shifts every column after it. Variation selectors, also
 * default-ignorable, stay: they choose how the character before them looks.
 */
export const UNSHOWN_SOURCE = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Cn}\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0]|[^\S ]`;

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
 * What makes a line of a CI log a command to the GitHub Actions runner: `::` at its start after
 * blanks (`::error::…`, `::add-mask::…`, `::stop-commands::…`), or the runner's older prefix
 * `##[` anywhere in it (actions/runner, `ActionCommand`: `TryParseV2` looks for a line starting
 * with `::` once trimmed, `TryParse` for `##[` at any index). Matches the character to escape: the
 * first `:` of a leading `::`, the first `#` of `##[`.
 */
const CI_COMMAND = /(?<=^[^\S\n]*):(?=:)|#(?=#\[)/g;

/**
 * `text` with what {@link CI_COMMAND} finds written as `\uXXXX` (`\u003a:error::x`,
 * `a \u0023#[error]x`): a path, a command or a verifier's line that an agent wrote then cannot
 * issue a workflow command where cordon's output lands in a CI log. The text still reads as it
 * did, as the other escapes do.
 */
export function ciInert(text: string): string {
  return text.includes('::') || text.includes('##[') ? text.replace(CI_COMMAND, escapeUnits) : text;
}

/**
 * `text` as one line safe to print on a terminal and in a CI log: every character of
 * {@link UNSHOWN_SOURCE} (a line break and a tab too) becomes its `\uXXXX` escapes
 * ({@link escapeUnits}), and so does what would make the line a CI workflow command
 * ({@link ciInert}); everything else is kept, so `x\x1b]52;c;…\x07` prints as
 * `x\u001b]52;c;…\u0007`.
 */
export function shownLine(text: string): string {
  if (PLAIN.test(text)) return ciInert(text);
  return ciInert(text.replace((unshownAll ??= new RegExp(UNSHOWN_SOURCE, 'gu')), escapeUnits));
}

/** Finds what JSON.stringify leaves raw that a terminal acts on, and the CI prefix `##[` (see {@link shownJson}). */
let unshownInJson: RegExp | undefined;

/**
 * `value` as JSON text (`JSON.stringify(value, null, space)`), safe to print on a terminal and in a
 * CI log as well: `JSON.stringify` escapes C0 controls and lone surrogates, but writes DEL, C1
 * controls (U+009B is an 8-bit CSI), bidirectional overrides (U+202E), line separators and the
 * other characters of {@link UNSHOWN_SOURCE} as they are, and `##[` inside a string is a
 * command to the GitHub Actions runner ({@link ciInert}). Those become `\uXXXX` escapes, which
 * JSON reads back as the same characters: `JSON.parse(shownJson(v))` equals
 * `JSON.parse(JSON.stringify(v))`. `undefined` where `JSON.stringify` gives undefined.
 */
export function shownJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) as string | undefined;
  // Only line feeds (from `space`) and printable ASCII: nothing to escape but a `##[`.
  if (text === undefined || (/^[\n\x20-\x7e]*$/.test(text) && !text.includes('##['))) return text as string;
  // Raw line feeds and blanks in JSON text are its own layout: strings hold them escaped.
  return text.replace((unshownInJson ??= new RegExp(`(?![\\n ])(?:${UNSHOWN_SOURCE})|#(?=#\\[)`, 'gu')), escapeUnits);
}
