import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import type { LedgerHandle, LedgerRole } from '@cordon/plugin-api';
import { PcodxUsageError, isUserError } from './errors.js';
import type { LoopTarget } from './actions.js';
import { messageIdsHelper } from './message-ids.js';
import { compactLines, uncompactLines, visibleIdsLine, type Sink } from './output.js';
import { decode, MAX_TEXT_BYTES, readTextFile } from './text-input.js';

/** The prompt, shown only when stdout is a terminal (the Rust pcodx, SichangHe/partial_compact_codex). */
export const LOOP_PROMPT = 'pcodx> ';

const HELP = [
  'type a message to record it as a user turn and see the render, or a command:',
  '  /help                              this help (an empty line shows it too)',
  '  /ids                               visible ids, one per line',
  '  /show                              the render',
  '  /current-session-message-ids       the ids helper (alias /message-ids)',
  '  /record <role> <text>              record a message: system, developer, user, assistant or tool',
  '  /record-file <role> <path>         record a file (relative paths start at the session cwd)',
  '  /compact <from>..<to> <summary>    replace a visible range by a summary',
  '  /uncompact <cmpN>                  undo a compaction',
  '  /turn <text>                       record a user turn and see the render',
  '  /exit, /quit                       leave',
  'a line starting with / that is not one of these (/usr/bin/python is missing) is a user turn,',
  'unless its first word is close to one (/exti is refused: did you mean /exit?);',
  'start a line with // to send it anyway (//help records the turn /help, //exti the turn /exti)',
];

/**
 * The slash commands; any other line (even one starting with `/`) is a user turn, unless its
 * first word is close to one of these ({@link ClosestName}).
 */
export const COMMANDS: ReadonlySet<string> = new Set([
  '/help',
  '/exit',
  '/quit',
  '/ids',
  '/show',
  '/current-session-message-ids',
  '/message-ids',
  '/turn',
  '/record',
  '/record-file',
  '/compact',
  '/uncompact',
]);

/**
 * Splits off the first token: it ends at the first whitespace character, and only that one
 * character is consumed, so the rest (leading spaces included) is kept exactly (the Rust pcodx, SichangHe/partial_compact_codex).
 */
export function splitFirst(text: string): [string, string | undefined] {
  const at = text.search(/\s/);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * The name of `names` a user most likely meant by `typed`, or undefined: the host's typo rule
 * (`api.services.names.closest`, the one `cordon chek` is answered with).
 */
export type ClosestName = (typed: string, names: Iterable<string>) => string | undefined;

/**
 * One interactive session over a ledger (the Rust pcodx, SichangHe/partial_compact_codex).
 * Handles one input line; returns `'exit'` after `/exit` or `/quit`. Rule violations and usage
 * mistakes print `error: …` on stderr and the loop goes on; database errors are thrown (abort).
 * With `closest`, a line whose first word starts with `/` and is close to a command
 * (`/exti`) is refused, not recorded: a mistyped command saved as a user turn cannot be taken back.
 */
export class InteractiveLoop {
  constructor(
    private readonly ledger: LedgerHandle,
    private readonly target: LoopTarget,
    private readonly sink: Sink,
    private readonly closest?: ClosestName,
  ) {}

  /** The three opening lines. */
  banner(): void {
    this.sink.out('pcodx interactive');
    this.sink.out(`session_id=${this.target.session.id}`);
    this.sink.out('commands: /help /ids /show /message-ids /record /record-file /compact /uncompact /turn /exit; other lines are user turns');
  }

  /** Prints why an input line was not taken (`error: …` on stderr); the loop goes on. */
  refuse(error: Error): void {
    this.sink.err(`error: ${error.message}`);
  }

  async handle(line: string): Promise<'exit' | undefined> {
    try {
      return await this.#dispatch(line);
    } catch (error) {
      if (!isUserError(error)) throw error;
      this.sink.err(`error: ${(error as Error).message}`);
      return undefined;
    }
  }

  async #dispatch(line: string): Promise<'exit' | undefined> {
    const id = this.target.session.id;
    if (line.trim() === '') return this.#help();
    // `//…` is the escape for a turn that starts with a slash: one slash is dropped.
    if (line.startsWith('//')) return this.#turn(line.slice(1), 'cli-interactive');
    const [command, rest] = splitFirst(line);
    // Only the commands listed in /help are commands: `/usr/bin/python is missing` is a turn;
    // `/exti` is a command mistyped, refused with the one meant.
    if (!COMMANDS.has(command)) {
      const meant = this.closest?.(command, COMMANDS);
      // A longer word that only begins with a command (`/turnaround`, `/showcase`) is a turn: the
      // host's rule also takes a unique prefix, which suits a flag, not the first word of a message.
      const longerWord = meant !== undefined && command.startsWith(meant) && command.length > meant.length + 2;
      if (meant !== undefined && !longerWord) throw new PcodxUsageError(`unknown command ${command}; did you mean ${meant}? (to send it as a message, start the line with //)`);
      return this.#turn(line, 'cli-interactive');
    }
    switch (command) {
      case '/help':
        return this.#help();
      case '/exit':
      case '/quit':
        this.sink.out('bye');
        return 'exit';
      case '/ids':
        this.sink.out(`session_id=${id}`);
        for (const entryId of await this.ledger.visibleIds(id)) this.sink.out(entryId);
        return undefined;
      case '/show':
        this.sink.out(await this.ledger.render(id));
        return undefined;
      case '/current-session-message-ids':
      case '/message-ids':
        this.sink.out(messageIdsHelper(await this.ledger.visibleIds(id)).replace(/\n$/, ''));
        return undefined;
      case '/turn':
        if (!rest) return this.#usage('/turn <text>');
        return this.#turn(rest, 'cli-interactive');
      case '/record': {
        const [role, text] = splitFirst(rest ?? '');
        if (!role || !text) return this.#usage('/record <role> <text>');
        return this.#record(role as LedgerRole, text, 'cli-interactive');
      }
      case '/record-file': {
        const [role, path] = splitFirst(rest ?? '');
        if (!role || !path) return this.#usage('/record-file <role> <path>');
        const file = resolve(this.target.cwd, path);
        return this.#record(role as LedgerRole, decode(await readTextFile(file), file), `cli-interactive-file:${file}`);
      }
      case '/compact': {
        const [bounds, summary] = splitFirst(rest ?? '');
        const dots = bounds.indexOf('..');
        if (dots <= 0 || dots + 2 >= bounds.length || !summary) return this.#usage('/compact <from_msg_or_cmp>..<to_msg_or_cmp> <summary>');
        const result = await this.ledger.compact(id, [{ from: bounds.slice(0, dots), to: bounds.slice(dots + 2), summary }]);
        for (const l of compactLines(result)) this.sink.out(l);
        return undefined;
      }
      case '/uncompact': {
        const [target] = splitFirst(rest ?? '');
        if (!target) return this.#usage('/uncompact <cmpN>');
        for (const l of uncompactLines(await this.ledger.uncompact(id, target))) this.sink.out(l);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  #help(): undefined {
    for (const l of HELP) this.sink.out(l);
    return undefined;
  }

  #usage(text: string): undefined {
    this.sink.err(`usage: ${text}`);
    return undefined;
  }

  async #turn(text: string, source: string): Promise<undefined> {
    const id = this.target.session.id;
    const [message] = await this.ledger.record(id, [{ role: 'user', text, source }]);
    this.sink.out(`prompt_message_id=${message!.id}`);
    this.sink.out('future_context_source=pcodx-render');
    this.sink.out(await this.ledger.render(id));
    return undefined;
  }

  async #record(role: LedgerRole, text: string, source: string): Promise<undefined> {
    const id = this.target.session.id;
    const [message] = await this.ledger.record(id, [{ role, text, source }]);
    this.sink.out(`message_id=${message!.id}`);
    if (message!.attachedTo) this.sink.out(`attached_to=${message!.attachedTo}`);
    this.sink.out(visibleIdsLine(await this.ledger.visibleIds(id)));
    return undefined;
  }
}

/** How {@link runLoop} ended: `/exit` or `/quit`, end of input (Ctrl-D), or Ctrl-C on a terminal. */
export type LoopEnd = 'exit' | 'end' | 'interrupt';

/**
 * Runs the loop on a line stream until `/exit`, `/quit` or end of input. On a terminal
 * (`tty`), readline edits lines and shows {@link LOOP_PROMPT} before each; otherwise lines are
 * read as they are ({@link pipedLines}), with no prompt. A line is its text without the line break. On a terminal,
 * Ctrl-C (readline's `SIGINT`: the terminal is in raw mode, so no signal is sent) and Ctrl-D end
 * the loop after a newline, so the shell's prompt starts on a line of its own; the caller exits
 * as for SIGINT on `'interrupt'`.
 */
export async function runLoop(loop: InteractiveLoop, io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; tty: boolean }): Promise<LoopEnd> {
  loop.banner();
  if (!io.tty) {
    for await (const line of pipedLines(io.input)) {
      if (typeof line !== 'string') loop.refuse(line);
      else if ((await loop.handle(line)) === 'exit') return 'exit';
    }
    return 'end';
  }
  const rl = createInterface({ input: io.input, output: io.tty ? io.output : undefined, terminal: io.tty, crlfDelay: Infinity });
  let end: LoopEnd = 'end';
  if (io.tty) {
    rl.on('SIGINT', () => {
      end = 'interrupt';
      rl.close();
    });
    rl.setPrompt(LOOP_PROMPT);
    rl.prompt();
  }
  try {
    for await (const line of rl) {
      if ((await loop.handle(line)) === 'exit') {
        end = 'exit';
        break;
      }
      if (io.tty) rl.prompt();
    }
  } finally {
    rl.close();
  }
  // The cursor is still after the prompt (and whatever was typed): end its line.
  if (io.tty && end !== 'exit') io.output.write('\n');
  return end;
}

/**
 * The lines of piped input: split at `\n` only, each without its `\n` and one `\r` before it (a
 * CRLF file). readline also ends a line at a lone `\r`, so a text holding one was cut into two
 * turns and what followed it read as a command of its own (`notes\r/uncompact cmp1` uncompacted
 * cmp1), which a writer that escapes lines starting with `/` cannot see coming.
 *
 * Each line is decoded as strict UTF-8, as `--text-file -` is: a line that is not UTF-8 is
 * yielded as a {@link PcodxUsageError} naming it (line N of stdin), where its bytes were recorded
 * as U+FFFD. A line longer than {@link MAX_TEXT_BYTES} is not gathered: its bytes are dropped as
 * they come and it is yielded as such an error once it ends, where the whole input was gathered
 * into one string and searched again for a line feed at every chunk (a 600 MB line without one
 * ran for minutes and then ran out of memory). Each byte is searched once.
 */
export async function* pipedLines(input: AsyncIterable<unknown>): AsyncGenerator<string | PcodxUsageError> {
  let pieces: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let number = 0;
  const end = (): string | PcodxUsageError => {
    number++;
    const bytes = Buffer.concat(pieces, size);
    const wasTooLong = tooLong;
    pieces = [];
    size = 0;
    tooLong = false;
    if (wasTooLong) return new PcodxUsageError(`line ${number} of stdin holds more than ${MAX_TEXT_BYTES} bytes (256 MiB), the most pcodx reads as one message; it was not recorded`);
    const text = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
    try {
      return decode(text, `line ${number} of stdin`);
    } catch (error) {
      return new PcodxUsageError(`${(error as Error).message}; it was not recorded`);
    }
  };
  const take = (bytes: Buffer): void => {
    if (tooLong) return;
    size += bytes.length;
    if (size > MAX_TEXT_BYTES) {
      tooLong = true;
      pieces = [];
      size = 0;
      return;
    }
    pieces.push(bytes);
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    let start = 0;
    for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, start)) {
      take(bytes.subarray(start, at));
      yield end();
      start = at + 1;
    }
    if (start < bytes.length) take(bytes.subarray(start));
  }
  if (size > 0 || tooLong) yield end();
}
