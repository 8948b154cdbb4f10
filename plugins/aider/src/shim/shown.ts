/**
 * Terminal escaping for the shell shim's one message of its own (a refusal's reason).
 *
 * The host's escaping (packages/host/src/output/terminal.ts `terminalText`, lent to plugins as
 * `api.services.terminal`) is out of reach here: the shim is its own process, started by the agent
 * as `$SHELL`, with no plugin host and so no `api.services`, and an installed plugin cannot import
 * host code (docs/plugins.md, "What an installed plugin can import"). So this is a small copy of
 * that rule: the same characters, the same `\uXXXX` form.
 */

/**
 * What a terminal does not show as itself: controls (C0 with tab and line breaks, DEL, C1: an ESC
 * starts the sequences that write the clipboard or set the title, ECMA-48 §5), format characters
 * (bidirectional overrides, Unicode TR #9), line and paragraph separators, lone surrogates and
 * every space but U+0020. The host's set.
 */
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]|[^\S ]/gu;

/**
 * `text` as one line safe to print on a terminal: every character of {@link UNSHOWN} (a line
 * break too) becomes its UTF-16 code units as `\uXXXX` escapes; everything else is kept.
 */
export function shownLine(text: string): string {
  return text.replace(UNSHOWN, (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}
