import { terminalLines } from './terminal.js';

/**
 * An error as cordon prints it on stderr without `--json`: `Error: <message>`, then
 * `Code: <code>`, every line indented four spaces (the layout oclif gives its own errors), with
 * the message made safe for a terminal (it may quote what an agent wrote: a path, a command) and
 * never broken into lines of its own: oclif hard-wraps at 80 columns whenever stderr is not a
 * terminal, which splits a long path in a CI log mid-name, and a terminal wraps by itself.
 * Ends with a newline.
 */
export function errorText(message: string, code: string): string {
  const lines = `Error: ${terminalLines(message)}\nCode: ${code}`.split('\n');
  return `${lines.map((line) => (line === '' ? '' : `    ${line}`)).join('\n')}\n`;
}

/** What cordon says about an error, in every output form. */
export interface ReportedError {
  /** A `CORDON_*` code of the catalogue (src/errors/catalogue.ts). */
  readonly code: string;
  readonly message: string;
  /** More for `--json` (default `{}`). */
  readonly details?: unknown;
}

/**
 * The `--json` error document every cordon command prints on stdout:
 * `{"error": {code, details, message}}`, `details` `{}` when there is none (docs/reference.md
 * "Exit codes"). The message is escaped for a terminal as the text form is: it may quote what an
 * agent wrote.
 */
export function errorDocument(error: ReportedError): { error: { code: string; details: unknown; message: string } } {
  const details = error.details !== null && typeof error.details === 'object' ? error.details : {};
  return { error: { code: error.code, details, message: terminalLines(error.message) } };
}
