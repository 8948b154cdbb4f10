/**
 * ECMA-48 control sequences introduced by CSI (ESC `[`, parameter bytes 0x30–0x3F, intermediate
 * bytes 0x20–0x2F, one final byte 0x40–0x7E; ECMA-48 5.4): the colours (SGR, `ESC[31m`) and
 * cursor moves a logger or oclif's own chalk writes. Only CSI: an OSC (which would set a
 * window title or the clipboard) or a lone control character is not matched; where text is
 * shown it stays and the terminal renderers escape it (output/terminal.ts).
 */
const CSI_SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]/g;

/**
 * `text` without its CSI sequences ({@link CSI_SEQUENCE}), for comparing or re-showing text a
 * program coloured: an agent's stderr lines, oclif's usage errors and its `failed` mark. Never throws.
 */
export function withoutCsi(text: string): string {
  return text.includes('\x1b') ? text.replace(CSI_SEQUENCE, '') : text;
}
