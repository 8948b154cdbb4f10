import { wellFormed } from '@cordon/plugin-api';
import { terminalLines } from './terminal.js';

/**
 * Untrusted text as HTML text or a double-quoted attribute value (HTML Living Standard §13.1.2.3:
 * `&`, `<`, `>`, `"` and `'` as character references), lone surrogates as U+FFFD, and every
 * control and bidirectional character but tab and line feed as its `\uXXXX` escape
 * ({@link terminalLines}): a report file is also read with `cat` and `less`, where an ESC would
 * act, and a browser shows a bidi override's reordering.
 */
export function htmlText(text: string): string {
  return terminalLines(wellFormed(text)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
