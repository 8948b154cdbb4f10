import { wellFormed } from '@cordon/plugin-api';

/**
 * Untrusted text as HTML text or a double-quoted attribute value (HTML Living Standard §13.1.2.3:
 * `&`, `<`, `>`, `"` and `'` as character references), lone surrogates as U+FFFD.
 */
export function htmlText(text: string): string {
  return wellFormed(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
