import type { CordonServices } from '@cordon/plugin-api';

/**
 * How `cordon wrap` says something on stderr: `cordon wrap: <text>` on a line of its own, `text`
 * escaped for a terminal as the host escapes its own messages (`api.services.terminal.lines`), as
 * it may quote the command as typed (`cannot start 'n\u001b[31mx'`). A host before the service
 * lends none: the text then goes out as it is. Returns the function that prints one notice.
 */
export function wrapNotice(services: Pick<CordonServices, 'terminal'>, stderr: NodeJS.WritableStream = process.stderr): (text: string) => void {
  // Optional at run time: a host older than the service has none.
  const terminal = services.terminal as CordonServices['terminal'] | undefined;
  return (text) => void stderr.write(`cordon wrap: ${terminal ? terminal.lines(text) : text}\n`);
}
