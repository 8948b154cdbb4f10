/**
 * The one way untrusted text (a path, a command, a tool name, a verifier's output, an error
 * message) reaches a terminal. Terminals act on control characters: ESC starts sequences that
 * write the clipboard (OSC 52), set the window title (OSC 0/2), clear the screen (CSI 2 J) or
 * move the cursor over earlier lines (ECMA-48 §5, xterm's "Control Sequences"); C1 controls do
 * the same in 8-bit mode. Bidirectional overrides reorder what is shown (Unicode TR #9, the
 * "Trojan Source" attack, CVE-2021-42574).
 */

import { ciInert, escapeUnits, shownLine, UNSHOWN_SOURCE } from '@cordon/plugin-api';

/** The expressions over {@link UNSHOWN_SOURCE}: `any` finds one, `allButTab` replaces every one but tabs. */
interface UnshownPatterns {
  readonly any: RegExp;
  /** {@link UNSHOWN_SOURCE} but for the tab, which a report's text (a verifier's output) may hold as layout. */
  readonly allButTab: RegExp;
}

let patterns: UnshownPatterns | undefined;

/**
 * The expressions, built on first use: parsing their Unicode property classes costs about 0.1 ms
 * each, which every fast route (the hook on each tool call) paid at start-up though most runs
 * print nothing (`npm run bench:hook`).
 */
function unshown(): UnshownPatterns {
  return (patterns ??= {
    any: new RegExp(UNSHOWN_SOURCE, 'u'),
    allButTab: new RegExp(`(?!\\t)(?:${UNSHOWN_SOURCE})`, 'gu'),
  });
}

/**
 * Printable ASCII only (U+0020–U+007E): in that range {@link UNSHOWN_SOURCE} matches nothing (its
 * ASCII members are C0 controls and DEL), so the text is shown as is without building the
 * Unicode expressions, about 1.2 ms that `cordon check` paid for printing a verdict of plain paths.
 */
const PLAIN = /^[\x20-\x7e]*$/;

export { escapeUnits };

/**
 * One line of untrusted text made safe to print (the plugin API's `shownLine`, the rule plugins
 * printing without the host share): every unshown character ({@link UNSHOWN_SOURCE}) (a newline
 * too) becomes its `\uXXXX` escape, so `printf 'x\e]52;c;…\a'` prints as
 * `printf 'x\u001b]52;c;…\u0007'` and nothing reaches the terminal as a control.
 */
export function terminalText(text: string): string {
  return shownLine(text);
}

/**
 * Text of several lines made safe to print: each line as {@link terminalText} except that tabs
 * stay, the line breaks (LF, and CR LF as LF) kept. For whole reports whose lines hold untrusted
 * parts (a verifier's output, an agent's commands). A line that would be a CI workflow command
 * (`::error::…` at its start, `##[` anywhere) is made inert too ({@link ciInert}), so cordon's
 * own output through this function never issues one.
 */
export function terminalLines(text: string): string {
  const lines = text.split(/\r?\n/);
  return lines.map((line) => ciInert(PLAIN.test(line) ? line : line.replace(unshown().allButTab, escapeUnits))).join('\n');
}

/**
 * A name (a path, a session id) as a human reads it on one line: as is when every character
 * shows as itself, else JSON-quoted with each unshown character as a `\uXXXX` escape (`"a\nb"`,
 * `"x\udcff"`, `"report\u202etxt.exe"`), as `git status` quotes such names. A quote is quoted
 * too, so that a quoted name cannot be taken for a plain one, and so is a name that would make a
 * CI log line a workflow command (`::error::x`, `a ##[error]b`: {@link ciInert}).
 */
export function displayName(text: string): string {
  if (!text.includes('"') && ciInert(text) === text && (PLAIN.test(text) || !unshown().any.test(text))) return text;
  // JSON.stringify already escapes C0 controls, quotes, backslashes and lone surrogates.
  return terminalText(JSON.stringify(text));
}

/**
 * One line of untrusted text as {@link terminalText} shows it, at most `width` characters wide:
 * text that shows longer is cut and ends with `…`. The cut falls between the source's characters,
 * never inside the `\uXXXX` escape one of them became (`\u001b` is kept whole or left out) nor
 * inside a surrogate pair. For table cells and labels of limited width. What is kept is no CI
 * workflow command either ({@link ciInert}), as {@link terminalText}'s whole line is not.
 */
export function terminalCut(text: string, width: number): string {
  const shown = terminalText(text);
  if (shown.length <= width) return shown;
  const room = Math.max(0, width - 1);
  let out = '';
  for (const c of text) {
    const piece = terminalText(c);
    // Measured with the CI escapes: a `##[` or a leading `::` is one only in its context, which a
    // single character's escape cannot see, and its escape makes the kept text longer.
    if (ciInert(out + piece).length > room) break;
    out += piece;
  }
  return `${ciInert(out)}…`;
}
