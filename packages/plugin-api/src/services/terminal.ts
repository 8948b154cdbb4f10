/**
 * Terminal escaping lent to plugins (`api.services.terminal`), so that what a plugin prints for a
 * terminal is made safe the way the host's own output is (packages/host/src/output/terminal.ts):
 * an ESC or BEL in recorded text shows as `\u001b`, `\u0007` instead of acting on the terminal
 * (an OSC 52 clipboard write, a title change, a cleared screen).
 */
export interface TerminalService {
  /**
   * Text of several lines made safe to print on a terminal: every character a terminal does not
   * show as itself (C0 and C1 controls, DEL, format characters such as bidirectional overrides,
   * lone surrogates, spaces other than U+0020) becomes its `\uXXXX` escape, except tabs and line
   * breaks (LF kept, CR LF written as LF). The host's `terminalLines`.
   */
  lines(text: string): string;
  /**
   * `value` as one JSON text safe to print on a terminal and in a CI log, for a plugin's `--json`
   * output: `JSON.stringify`'s, with DEL, C1 controls, bidirectional overrides, line separators
   * and a `##[` in a string written as `\uXXXX` escapes, so it parses back to the same value. The
   * host's `shownJson` (`space` as `JSON.stringify`'s). Hosts before it lend none: a plugin that
   * may run on one checks that it is there.
   */
  json(value: unknown, space?: number): string | undefined;
}
