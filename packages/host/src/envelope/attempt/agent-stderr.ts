import { StringDecoder } from 'node:string_decoder';
import { cutText } from '@cordon/plugin-api';
import { withoutCsi } from '../../output/control-sequences.js';
import { redactText } from '../../output/redact.js';

/** Lines of an agent's stderr `run`, `resume` and `status` show after an engine error, at most. */
export const AGENT_STDERR_LINES = 8;
/** Characters of one such line shown at most. */
const LINE_CHARS = 300;
/** Characters of the agent's last stderr line in the status line at most. */
const STATUS_CHARS = 100;
/** Characters of an unfinished stderr line kept while the agent runs. */
const PARTIAL_CHARS = 4096;

/** A leading ISO-8601 time stamp, as tracing-style loggers (Codex's) begin each line. */
const TIME_STAMP = /^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s+/;

/** One line of agent stderr without control sequences and without its leading time stamp. */
function plainLine(line: string): string {
  return withoutCsi(line).replace(TIME_STAMP, '').trimEnd();
}

/**
 * The last lines of an agent's stderr (an attempt's `stderr_tail`) as `run`, `resume` and
 * `status` show them after an engine error: secrets redacted (output/redact.ts, as every record
 * of a command line is), control sequences and leading time stamps removed, blank lines dropped,
 * and a line that occurs more than once shown once, where it last occurred, with its count (a
 * client retrying a connection: `ERROR …: failed to connect to Responses WebSocket (7 times)`).
 * At most `max` lines of at most 300 characters; the text is not yet escaped for a terminal,
 * which the renderers do.
 */
export function agentStderrLines(text: string | null | undefined, max = AGENT_STDERR_LINES): string[] {
  if (!text) return [];
  const groups = new Map<string, { count: number; last: number }>();
  const lines = redactText(text).split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const line = plainLine(lines[i]!);
    if (line.trim() === '') continue;
    const group = groups.get(line);
    if (group) {
      group.count += 1;
      group.last = i;
    } else groups.set(line, { count: 1, last: i });
  }
  return [...groups.entries()]
    .sort((a, b) => a[1].last - b[1].last)
    .slice(-max)
    .map(([line, { count }]) => `${cutText(line, LINE_CHARS)}${count > 1 ? ` (${count} times)` : ''}`);
}

/**
 * The last line an agent wrote to stderr, followed chunk by chunk while it runs (decoded as a
 * stream, so a character split between chunks stays whole), for the status line: what the agent
 * is doing when its hooks report nothing (`stderr: ERROR …: failed to connect …`).
 */
export class AgentStderrFollower {
  readonly #decoder = new StringDecoder('utf8');
  #partial = '';
  #last = '';

  /** Takes the next chunk of the agent's stderr. */
  add(chunk: Buffer): void {
    const text = this.#partial + this.#decoder.write(chunk);
    const lines = text.split(/\r\n|\n|\r/);
    this.#partial = cutText(lines.pop()!, PARTIAL_CHARS);
    for (let i = lines.length - 1; i >= 0; i--) {
      if (lines[i]!.trim() !== '') {
        this.#last = cutText(lines[i]!, PARTIAL_CHARS);
        break;
      }
    }
  }

  /** The last non-blank line (an unfinished one first), redacted and cut for the status line, or undefined before any. */
  lastLine(): string | undefined {
    const line = plainLine(this.#partial.trim() !== '' ? this.#partial : this.#last).trim();
    return line === '' ? undefined : cutText(redactText(line), STATUS_CHARS);
  }
}
