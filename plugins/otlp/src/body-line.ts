import { cutText, shownLine } from '@cordon/plugin-api';

/** How many characters of a refusing receiver's body an error message shows at most. */
export const BODY_LINE_MAX = 200;

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * One short line of an HTTP error body, for a message: a receiver or a proxy in front of it often
 * answers with a whole HTML page. Comments, `<script>` and `<style>` go with their content, every
 * other tag becomes a line break, the common entities are decoded, and the first line left with
 * text is kept, its spaces collapsed, every character a terminal does not show as itself written as
 * `\uXXXX` (the plugin API's `shownLine`), and cut at {@link BODY_LINE_MAX} characters (`…` added). `''` when no
 * line has text.
 */
export function bodyLine(body: string, max = BODY_LINE_MAX): string {
  const text = body
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '\n')
    .replace(/<(script|style)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, '\n')
    .replace(/<[^>]*>?/g, '\n')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
  const line = text
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map((l) => l.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .find((l) => l !== '');
  if (line === undefined) return '';
  const escaped = shownLine(line);
  return escaped.length > max ? `${cutText(escaped, max - 1)}…` : escaped;
}
